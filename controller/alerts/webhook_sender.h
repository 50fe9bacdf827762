#pragma once

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/http_client.h"
#include "common/time/clock.h"
#include "controller/alerts/webhook_backoff.h"
#include "controller/alerts/webhook_signature.h"

namespace kvbench::controller {

// How long one attempt may take, first byte to last. Shorter than the specification's suggested
// 15-30 s: an alert receiver only has to queue the alert, and a hung one must not hold the
// delivery worker for long.
inline constexpr absl::Duration kDefaultWebhookTimeout = absl::Seconds(10);
// How much of a failed response's body goes into the attempt's detail.
inline constexpr size_t kWebhookDetailBodyBytes = 200;

// Where alerts of one configured webhook go.
struct WebhookTarget {
  std::string name;  // the config's name for it, for messages
  std::string url;   // http:// or https:// (ValidateWebhookUrl)
  WebhookKey key;
  absl::Duration timeout = kDefaultWebhookTimeout;
};

// What one attempt came to.
struct DeliveryAttempt {
  DeliveryOutcome outcome = DeliveryOutcome::kRetry;
  int http_status = 0;  // 0 when no response came
  // One line for people: "HTTP 503 from http://127.0.0.1:4321/hook: <start of the body>", or
  // the transport failure ("UNAVAILABLE: POST http://...: ... Connection refused ..."). URLs in it
  // have their user-info and query replaced by "***"; the key never appears.
  std::string detail;
  // The receiver's Retry-After on a 429 or 503 (WebhookRetryAfter), zero when none: pass it to
  // NextWebhookAttempt.
  absl::Duration retry_after = absl::ZeroDuration();
  absl::Time attempted_at = absl::InfinitePast();  // the time signed into webhook-timestamp
};

// OK for an absolute http:// or https:// URL with a host (the scheme in any case); else
// INVALID_ARGUMENT naming the URL (user-info and query hidden) and what is wrong: another scheme,
// no host, a bad port, whitespace or control characters.
absl::Status ValidateWebhookUrl(absl::string_view url);

// Sends one signed delivery attempt (Standard Webhooks headers, webhook_signature.h) as a POST,
// and says what came of it; the retry schedule is the caller's (NextWebhookAttempt). Blocks for up
// to the target's timeout: call it from a worker thread, never from an event loop. Send is const
// and safe from several threads at once (HttpClient and Clock are). It never throws and logs
// nothing: the caller records the attempt and rate-limits its own log lines.
class WebhookSender {
 public:
  // Borrowed; both must outlive the sender.
  WebhookSender(HttpClient* http_client, const Clock* clock);

  // `delivery_id` is the webhook-id: the same on every attempt of one delivery, so receivers
  // can drop duplicates. `json_body` is sent byte for byte as signed. A bad URL or delivery id is
  // a permanent failure, and nothing is sent.
  DeliveryAttempt Send(const WebhookTarget& target, absl::string_view delivery_id,
                       absl::string_view json_body) const;

 private:
  HttpClient* const http_client_;
  const Clock* const clock_;
};

}  // namespace kvbench::controller
