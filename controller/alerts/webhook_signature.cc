#include "controller/alerts/webhook_signature.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/log/logging.h"

namespace kvbench::controller {
namespace {

constexpr absl::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";

// The raw HMAC-SHA256 of the signed content "<id>.<unix_seconds>.<body>".
std::string HmacSha256(const WebhookKey& key, absl::string_view id, int64_t unix_seconds,
                       absl::string_view body) {
  const std::string content = absl::StrCat(id, ".", unix_seconds, ".", body);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  // HMAC() fails only when OpenSSL cannot allocate or lacks SHA-256: a broken process.
  const unsigned char* result = HMAC(
      EVP_sha256(), key.bytes().data(), static_cast<int>(key.bytes().size()),
      reinterpret_cast<const unsigned char*>(content.data()), content.size(), digest, &digest_size);
  KV_CHECK(result != nullptr) << "HMAC-SHA256 failed in OpenSSL";
  return std::string(reinterpret_cast<const char*>(digest), digest_size);
}

}  // namespace

absl::StatusOr<WebhookKey> WebhookKey::FromSecret(absl::string_view secret) {
  if (secret.empty()) return absl::InvalidArgumentError("webhook secret: empty");
  if (!absl::StartsWith(secret, kWebhookSecretPrefix)) return WebhookKey(std::string(secret));

  const absl::string_view encoded = secret.substr(kWebhookSecretPrefix.size());
  if (encoded.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("webhook secret: nothing after \"",
                                                   kWebhookSecretPrefix,
                                                   "\" (expected the key in base64)"));
  }
  // absl::Base64Unescape skips whitespace; a secret with a space or newline inside is a paste
  // error, so only the alphabet is accepted. The message gives the position, not the secret.
  const size_t bad = encoded.find_first_not_of(kBase64Alphabet);
  if (bad != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "webhook secret: character ", kWebhookSecretPrefix.size() + bad + 1,
        " is not base64 (after \"", kWebhookSecretPrefix, "\" come only A-Z a-z 0-9 + / =)"));
  }
  std::string key;
  if (!absl::Base64Unescape(encoded, &key) || key.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("webhook secret: the part after \"",
                                                   kWebhookSecretPrefix,
                                                   "\" is not valid base64 (check its length "
                                                   "and '=' padding)"));
  }
  return WebhookKey(std::move(key));
}

absl::Status ValidateWebhookId(absl::string_view id) {
  if (id.empty()) return absl::InvalidArgumentError("webhook id: empty");
  if (id.size() > kMaxWebhookIdBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("webhook id: ", id.size(), " bytes; at most ", kMaxWebhookIdBytes));
  }
  for (size_t i = 0; i < id.size(); ++i) {
    const auto byte = static_cast<unsigned char>(id[i]);
    if (byte < 0x21 || byte > 0x7E || byte == '.') {
      return absl::InvalidArgumentError(
          absl::StrCat("webhook id \"", absl::CHexEscape(id), "\": character ", i + 1,
                       " is not allowed (visible ASCII other than '.' only)"));
    }
  }
  return absl::OkStatus();
}

std::string SignWebhook(const WebhookKey& key, absl::string_view id, int64_t unix_seconds,
                        absl::string_view body) {
  return absl::StrCat(kWebhookSignatureVersion, ",",
                      absl::Base64Escape(HmacSha256(key, id, unix_seconds, body)));
}

HttpHeaders WebhookHeaders(const WebhookKey& key, absl::string_view id, absl::Time at,
                           absl::string_view body) {
  const int64_t unix_seconds = absl::ToUnixSeconds(at);
  HttpHeaders headers;
  headers.emplace_back(kWebhookIdHeader, id);
  headers.emplace_back(kWebhookTimestampHeader, absl::StrCat(unix_seconds));
  headers.emplace_back(kWebhookSignatureHeader, SignWebhook(key, id, unix_seconds, body));
  headers.emplace_back("content-type", "application/json");
  return headers;
}

bool VerifyWebhookSignature(const WebhookKey& key, absl::string_view id, int64_t unix_seconds,
                            absl::string_view body, absl::string_view signature_header) {
  const std::string expected = absl::Base64Escape(HmacSha256(key, id, unix_seconds, body));
  bool matched = false;
  for (absl::string_view entry : absl::StrSplit(signature_header, ' ', absl::SkipEmpty())) {
    const size_t comma = entry.find(',');
    if (comma == absl::string_view::npos) continue;
    if (entry.substr(0, comma) != kWebhookSignatureVersion) continue;
    const absl::string_view candidate = entry.substr(comma + 1);
    // Every candidate is compared, in constant time, so timing tells nothing about which matched
    // or how much of a guess was right (the specification's warning about signing oracles).
    if (candidate.size() == expected.size()) {
      matched |= CRYPTO_memcmp(candidate.data(), expected.data(), expected.size()) == 0;
    }
  }
  return matched;
}

}  // namespace kvbench::controller
