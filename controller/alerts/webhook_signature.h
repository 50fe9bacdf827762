#pragma once

// Webhook signing per the Standard Webhooks specification (https://www.standardwebhooks.com,
// spec/standard-webhooks.md in github.com/standard-webhooks/standard-webhooks; the scheme Svix
// uses), so a receiver can check an alert with an off-the-shelf library:
//
//   webhook-id:        the delivery's id, the same on every retry (the receiver's idempotency key)
//   webhook-timestamp: the attempt's time, integer unix seconds (new on every retry)
//   webhook-signature: v1,<base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>"))>
//
// Pure functions; safe from any thread.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/http_client.h"

namespace kvbench::controller {

inline constexpr absl::string_view kWebhookIdHeader = "webhook-id";
inline constexpr absl::string_view kWebhookTimestampHeader = "webhook-timestamp";
inline constexpr absl::string_view kWebhookSignatureHeader = "webhook-signature";
// The specification's serialization of a symmetric secret: this prefix, then the key in base64.
inline constexpr absl::string_view kWebhookSecretPrefix = "whsec_";
// The version tag of an HMAC-SHA256 signature in webhook-signature.
inline constexpr absl::string_view kWebhookSignatureVersion = "v1";

// The HMAC key of one webhook target. Holds secret bytes: it has no operator<< or
// AbslStringify on purpose, and nothing here puts it in a message.
class WebhookKey {
 public:
  // The key a configured secret stands for:
  //   - "whsec_<base64>" (what Standard Webhooks providers hand out): the base64-decoding of the
  //     rest. INVALID_ARGUMENT when the rest is empty or not standard base64.
  //   - anything else: the secret's raw bytes are the key. Note that the specification's
  //     reference libraries (e.g. Go's NewWebhook) base64-decode a secret with or without the
  //     prefix; a receiver given a raw secret must use their raw-key constructor
  //     (NewWebhookRaw) instead. Prefer whsec_ secrets.
  // INVALID_ARGUMENT for an empty secret. Messages never echo the secret.
  static absl::StatusOr<WebhookKey> FromSecret(absl::string_view secret);

  // The key bytes: for the HMAC only, never for a log or a message.
  const std::string& bytes() const { return bytes_; }

 private:
  explicit WebhookKey(std::string bytes) : bytes_(std::move(bytes)) {}

  std::string bytes_;
};

// The longest webhook-id accepted: ids are ours (alert delivery ids), short and generated.
inline constexpr size_t kMaxWebhookIdBytes = 256;

// OK when `id` may be a webhook-id: 1 to kMaxWebhookIdBytes visible ASCII characters, none of
// them '.' (the specification forbids it: it would make "<id>.<timestamp>.<body>" ambiguous).
// INVALID_ARGUMENT naming what is wrong otherwise.
absl::Status ValidateWebhookId(absl::string_view id);

// "v1,<base64(HMAC-SHA256(key, "<id>.<unix_seconds>.<body>"))>": the webhook-signature value.
// `id` is signed as given: callers check it with ValidateWebhookId first.
std::string SignWebhook(const WebhookKey& key, absl::string_view id, int64_t unix_seconds,
                        absl::string_view body);

// The headers of one delivery attempt made at `at` (signed at its whole unix second, rounded
// down): webhook-id, webhook-timestamp, webhook-signature and content-type: application/json.
HttpHeaders WebhookHeaders(const WebhookKey& key, absl::string_view id, absl::Time at,
                           absl::string_view body);

// For receivers (and tests): true when one of the space-separated signatures in
// `signature_header` is a v1 signature of ("<id>.<unix_seconds>.<body>") under `key`, compared in
// constant time. Signatures of other versions (v1a...) are skipped, as the specification allows
// several during a key rotation. Checking that the timestamp is recent (the specification's
// replay protection) is the receiver's job.
bool VerifyWebhookSignature(const WebhookKey& key, absl::string_view id, int64_t unix_seconds,
                            absl::string_view body, absl::string_view signature_header);

}  // namespace kvbench::controller
