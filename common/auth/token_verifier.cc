#include "common/auth/token_verifier.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kvbench {

absl::Status CheckBearerToken(absl::string_view token, absl::string_view source) {
  if (token.size() > kMaxTokenBytes) {
    return absl::InvalidArgumentError(absl::StrCat("the token (", source, ") is ", token.size(),
                                                   " bytes; at most ", kMaxTokenBytes));
  }
  for (size_t i = 0; i < token.size(); ++i) {
    const auto byte = static_cast<unsigned char>(token[i]);
    if (byte < 0x21 || byte > 0x7E) {
      return absl::InvalidArgumentError(
          absl::StrCat("the token (", source, ") has a ",
                       byte < 0x20 || byte == 0x7F ? "control character"
                       : byte == 0x20              ? "space"
                                                   : "non-ASCII byte",
                       " at position ", i + 1,
                       ": a token is visible ASCII only (check for a trailing CR or newline)"));
    }
  }
  return absl::OkStatus();
}

std::string Sha256Hex(absl::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

absl::StatusOr<TokenVerifier> TokenVerifier::Create(const std::vector<std::string>& token_sha256) {
  std::vector<std::string> digests;
  for (size_t i = 0; i < token_sha256.size(); ++i) {
    const std::string& digest = token_sha256[i];
    const bool hex =
        digest.size() == 2 * SHA256_DIGEST_LENGTH &&
        std::all_of(digest.begin(), digest.end(), [](char c) { return absl::ascii_isxdigit(c); });
    if (!hex) {
      // The value is not echoed: it may be a token pasted by mistake.
      return absl::InvalidArgumentError(
          absl::StrCat("token_sha256[", i,
                       "] is not a SHA-256 digest (64 hex digits: printf %s TOKEN | "
                       "sha256sum)"));
    }
    digests.push_back(absl::AsciiStrToLower(digest));
  }
  return TokenVerifier(std::move(digests));
}

absl::Status TokenVerifier::Check(absl::string_view authorization) const {
  if (authorization.empty()) return absl::UnauthenticatedError("no bearer token");
  // The scheme is case-insensitive (RFC 7235); the token is taken as sent, less outer blanks.
  constexpr absl::string_view kScheme = "bearer ";
  if (authorization.size() < kScheme.size() ||
      !absl::EqualsIgnoreCase(authorization.substr(0, kScheme.size()), kScheme)) {
    return absl::UnauthenticatedError("malformed authorization (expected \"Bearer <token>\")");
  }
  const absl::string_view token = absl::StripAsciiWhitespace(authorization.substr(kScheme.size()));
  if (token.empty()) {
    return absl::UnauthenticatedError("malformed authorization (expected \"Bearer <token>\")");
  }
  const std::string digest = Sha256Hex(token);
  bool accepted = false;
  for (const std::string& candidate : digests_) {
    // Every candidate is compared, in constant time, so timing tells nothing about which matched.
    accepted |= CRYPTO_memcmp(candidate.data(), digest.data(), digest.size()) == 0;
  }
  if (!accepted) return absl::UnauthenticatedError("token not accepted");
  return absl::OkStatus();
}

}  // namespace kvbench
