#pragma once

// Bearer tokens of kvctl and schedulers. The controller config holds only SHA-256 digests (hex) of
// the accepted tokens, so the config file leaks no credential.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench {

// The longest bearer token kvctl sends (gRPC metadata is bounded; a 100 KB token fails as a
// retryable transport error).
inline constexpr size_t kMaxTokenBytes = 4096;

// OK when `token` can travel as "Bearer <token>" metadata: 1 to kMaxTokenBytes visible ASCII
// characters (0x21-0x7E). INVALID_ARGUMENT naming `source` ("--token or $KV_TOKEN") and the
// first bad byte's position otherwise, never the token itself: a CR, LF or non-ASCII byte
// would abort kvctl inside gRPC.
absl::Status CheckBearerToken(absl::string_view token, absl::string_view source);

// Lower-case hex SHA-256 of `text`.
std::string Sha256Hex(absl::string_view text);

class TokenVerifier {
 public:
  // INVALID_ARGUMENT naming the entry (not its value, which may be a token pasted by mistake)
  // when a digest is not 64 hex digits; either case is accepted.
  static absl::StatusOr<TokenVerifier> Create(const std::vector<std::string>& token_sha256);

  // `authorization` is the request's "authorization" metadata value ("" when absent). OK for
  // "Bearer <token>" (the scheme in any case, blanks around the token ignored) whose digest is
  // accepted (compared in constant time); UNAUTHENTICATED with the reason ("no bearer token" /
  // "malformed authorization" / "token not accepted") otherwise. Never echoes the token.
  absl::Status Check(absl::string_view authorization) const;

 private:
  explicit TokenVerifier(std::vector<std::string> digests) : digests_(std::move(digests)) {}

  std::vector<std::string> digests_;  // lower-case hex
};

}  // namespace kvbench
