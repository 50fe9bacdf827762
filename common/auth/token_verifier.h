#pragma once

// Bearer tokens of kvctl and schedulers. The controller config holds only SHA-256 digests (hex) of
// the accepted tokens, so the config file leaks no credential.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench {

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
