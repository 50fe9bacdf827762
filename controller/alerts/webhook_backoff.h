#pragma once

// The retry policy of webhook deliveries: which attempt outcomes are worth another try, when the
// next try is, and when a delivery has failed for good. Pure functions (the caller brings the
// time and the random bits), so they are table-tested and deterministic; safe from any thread.
//
// The backoff is exponential with full jitter (the next attempt at a uniform point between now
// and now + min(cap, base * multiplier^(attempts - 1))): failing receivers are not hit in
// lockstep by every delivery that failed with them.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/http_client.h"

namespace kvbench::controller {

// The ceiling of the delay after the first failed attempt.
inline constexpr absl::Duration kWebhookBackoffBase = absl::Seconds(1);
// Each further failed attempt multiplies the ceiling by this.
inline constexpr int kWebhookBackoffMultiplier = 2;
// The ceiling stops growing here (reached after the 10th failed attempt), and a receiver's
// Retry-After is honoured up to here: an alert later than that has lost most of its value.
inline constexpr absl::Duration kWebhookBackoffCap = absl::Minutes(5);
// A delivery that has made this many attempts without success has failed for good. With the
// defaults above that is about 20 minutes of ceilings in all; kWebhookMaxAge bounds deliveries
// whose attempts were late (a controller down or busy) or a policy with more attempts.
inline constexpr int kWebhookMaxAttempts = 12;
// No attempt is scheduled later than this after the first attempt.
inline constexpr absl::Duration kWebhookMaxAge = absl::Hours(24);

// A retry policy; the defaults are the constants above. The caller validates a policy read from
// config (positive durations, multiplier and attempts at least 1); the functions below only
// clamp (a non-positive base gives no delay).
struct WebhookRetryPolicy {
  absl::Duration base = kWebhookBackoffBase;
  int multiplier = kWebhookBackoffMultiplier;
  absl::Duration cap = kWebhookBackoffCap;
  int max_attempts = kWebhookMaxAttempts;
  absl::Duration max_age = kWebhookMaxAge;
};

// What one delivery attempt came to.
enum class DeliveryOutcome {
  kDelivered,         // a 2xx: done
  kRetry,             // worth another attempt, per the policy
  kPermanentFailure,  // retrying would not help: the receiver (or the URL) rejects it
};

// "delivered", "retry", "permanent_failure": for records and messages.
absl::string_view DeliveryOutcomeName(DeliveryOutcome outcome);

// The outcome of an attempt from what the HttpClient returned:
//   2xx                                  delivered
//   408, 429, 5xx                        retry (the receiver is slow, busy or broken for now)
//   other 4xx (400, 401, 404, 410...)    permanent: the receiver rejects this request, and the
//                                        same request again would be rejected again
//   3xx                                  permanent: redirects are not followed (the
//                                        specification's advice: fix the URL instead)
//   1xx or beyond 599                    retry (a garbled answer; the give-up rule bounds it)
//   INVALID_ARGUMENT (bad URL or request) permanent
//   any other failed Status              retry: UNAVAILABLE (refused, reset, DNS),
//                                        DEADLINE_EXCEEDED (timeout), and INTERNAL (TLS and
//                                        other transport failures, often transient)
DeliveryOutcome ClassifyWebhookResponse(const absl::StatusOr<HttpResponse>& response);

// The receiver's Retry-After, in its delay-seconds form, on a 429 or 503; nullopt otherwise
// (no header, another status, a failed Status, or the HTTP-date form, which is not honoured).
std::optional<absl::Duration> WebhookRetryAfter(const absl::StatusOr<HttpResponse>& response);

// The jittered delay after `attempts_made` attempts (at least 1) have failed: `random_bits`
// (uniform 64 bits: absl::Uniform<uint64_t>(bitgen), or fixed values in tests) mapped onto
// [0, min(policy.cap, policy.base * policy.multiplier^(attempts_made - 1))).
absl::Duration WebhookBackoffDelay(const WebhookRetryPolicy& policy, int attempts_made,
                                   uint64_t random_bits);

// When to try again, or that the delivery has failed for good.
struct WebhookRetryDecision {
  bool give_up = false;
  absl::Time next_attempt_at = absl::InfinitePast();  // when !give_up
  std::string reason;  // when give_up: one line for the delivery's record
};

// The decision after a retryable failure. `attempts_made` counts every attempt so far (this one
// included); `first_attempt_at` is when the first was made. The next attempt is at now plus the
// longer of WebhookBackoffDelay and `retry_after` (the receiver's, capped at policy.cap; zero
// when there is none). Gives up when policy.max_attempts attempts have been made, or when the
// next attempt would fall later than first_attempt_at + policy.max_age.
WebhookRetryDecision NextWebhookAttempt(const WebhookRetryPolicy& policy, int attempts_made,
                                        absl::Time first_attempt_at, absl::Time now,
                                        uint64_t random_bits,
                                        absl::Duration retry_after = absl::ZeroDuration());

}  // namespace kvbench::controller
