#include "controller/alerts/webhook_backoff.h"

#include <algorithm>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kvbench::controller {
namespace {

// Retry-After values with more digits than this are taken as "a very long time" (the cap).
constexpr size_t kMaxRetryAfterDigits = 9;

// The ceiling of the jittered delay after `attempts_made` failed attempts.
absl::Duration BackoffCeiling(const WebhookRetryPolicy& policy, int attempts_made) {
  if (policy.base <= absl::ZeroDuration()) return absl::ZeroDuration();
  absl::Duration ceiling = policy.base;
  // Multiplying stops at the cap, so the loop is short even for a policy of many attempts; a
  // multiplier of 1 (or less) is a constant backoff.
  for (int i = 1; i < attempts_made && ceiling < policy.cap && policy.multiplier > 1; ++i) {
    ceiling *= policy.multiplier;
  }
  return std::max(absl::ZeroDuration(), std::min(ceiling, policy.cap));
}

}  // namespace

absl::string_view DeliveryOutcomeName(DeliveryOutcome outcome) {
  switch (outcome) {
    case DeliveryOutcome::kDelivered:
      return "delivered";
    case DeliveryOutcome::kRetry:
      return "retry";
    case DeliveryOutcome::kPermanentFailure:
      return "permanent_failure";
  }
  return "unknown";
}

DeliveryOutcome ClassifyWebhookResponse(const absl::StatusOr<HttpResponse>& response) {
  if (!response.ok()) {
    return response.status().code() == absl::StatusCode::kInvalidArgument
               ? DeliveryOutcome::kPermanentFailure
               : DeliveryOutcome::kRetry;
  }
  const int status = response->status;
  if (status >= 200 && status <= 299) return DeliveryOutcome::kDelivered;
  if (status == 408 || status == 429) return DeliveryOutcome::kRetry;
  if (status >= 300 && status <= 499) return DeliveryOutcome::kPermanentFailure;
  return DeliveryOutcome::kRetry;  // 5xx, and statuses no receiver should send
}

std::optional<absl::Duration> WebhookRetryAfter(const absl::StatusOr<HttpResponse>& response) {
  if (!response.ok() || (response->status != 429 && response->status != 503)) return std::nullopt;
  const std::optional<std::string> header = response->Header("Retry-After");
  if (!header.has_value()) return std::nullopt;
  const absl::string_view text = absl::StripAsciiWhitespace(*header);
  // delay-seconds is 1*DIGIT (RFC 9110 10.2.3); anything else is the HTTP-date form or junk.
  if (text.empty() || !std::all_of(text.begin(), text.end(), absl::ascii_isdigit)) {
    return std::nullopt;
  }
  if (text.size() > kMaxRetryAfterDigits) return absl::InfiniteDuration();
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(text, &seconds)) return std::nullopt;
  return absl::Seconds(seconds);
}

absl::Duration WebhookBackoffDelay(const WebhookRetryPolicy& policy, int attempts_made,
                                   uint64_t random_bits) {
  // ceiling * random_bits / 2^64 in integer nanoseconds: exact, and below the ceiling even for
  // the largest random value (a double product would round up to the ceiling itself).
  const int64_t ceiling_ns = absl::ToInt64Nanoseconds(BackoffCeiling(policy, attempts_made));
  const absl::uint128 product =
      absl::uint128(static_cast<uint64_t>(ceiling_ns)) * absl::uint128(random_bits);
  return absl::Nanoseconds(static_cast<int64_t>(absl::Uint128High64(product)));
}

WebhookRetryDecision NextWebhookAttempt(const WebhookRetryPolicy& policy, int attempts_made,
                                        absl::Time first_attempt_at, absl::Time now,
                                        uint64_t random_bits, absl::Duration retry_after) {
  WebhookRetryDecision decision;
  if (attempts_made >= policy.max_attempts) {
    decision.give_up = true;
    decision.reason =
        absl::StrCat(attempts_made, " attempts made (at most ", policy.max_attempts, ")");
    return decision;
  }
  const absl::Duration delay = std::max(WebhookBackoffDelay(policy, attempts_made, random_bits),
                                        std::min(retry_after, policy.cap));
  const absl::Time next = now + delay;
  const absl::Time deadline = first_attempt_at + policy.max_age;
  if (next > deadline) {
    decision.give_up = true;
    decision.reason =
        absl::StrCat("the next attempt would be ", absl::FormatDuration(next - first_attempt_at),
                     " after the first, past the limit of ", absl::FormatDuration(policy.max_age),
                     " (", attempts_made, " attempts made)");
    return decision;
  }
  decision.next_attempt_at = next;
  return decision;
}

}  // namespace kvbench::controller
