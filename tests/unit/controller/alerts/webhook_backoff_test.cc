// The webhook retry policy as tables: the backoff ceilings and their cap, the jitter's bounds,
// Retry-After, the give-up rules, and which responses are retried.

#include "controller/alerts/webhook_backoff.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "tests/fakes/fake_http_client.h"

namespace kvbench::controller {
namespace {

using ::kvbench::testing::FakeHttpClient;

// Random bits that land the jitter exactly halfway: delay = ceiling / 2.
constexpr uint64_t kHalfway = uint64_t{1} << 63;
constexpr uint64_t kLargest = std::numeric_limits<uint64_t>::max();

const absl::Time kFirst = absl::FromUnixSeconds(1767225600);  // 2026-01-01T00:00:00Z

absl::StatusOr<HttpResponse> Response(int status, HttpHeaders headers = {}) {
  return FakeHttpClient::MakeResponse(status, "", std::move(headers));
}

TEST_CASE("webhook backoff ceilings double from one second up to the five minute cap",
          "[alerts][webhook_backoff]") {
  struct Row {
    int attempts_made;
    absl::Duration ceiling;
  };
  const std::vector<Row> rows = {
      {1, absl::Seconds(1)},  {2, absl::Seconds(2)},   {3, absl::Seconds(4)},
      {4, absl::Seconds(8)},  {5, absl::Seconds(16)},  {6, absl::Seconds(32)},
      {7, absl::Seconds(64)}, {8, absl::Seconds(128)}, {9, absl::Seconds(256)},
      {10, absl::Minutes(5)}, {11, absl::Minutes(5)},  {1000, absl::Minutes(5)},
  };
  const WebhookRetryPolicy policy;
  for (const Row& row : rows) {
    INFO("attempts made: " << row.attempts_made);
    CHECK(WebhookBackoffDelay(policy, row.attempts_made, kHalfway) == row.ceiling / 2);
  }
}

TEST_CASE("webhook backoff jitter spans zero up to just below the ceiling",
          "[alerts][webhook_backoff]") {
  const WebhookRetryPolicy policy;
  for (int attempts = 1; attempts <= 12; ++attempts) {
    INFO("attempts made: " << attempts);
    const absl::Duration ceiling = WebhookBackoffDelay(policy, attempts, kHalfway) * 2;
    CHECK(WebhookBackoffDelay(policy, attempts, 0) == absl::ZeroDuration());
    const absl::Duration longest = WebhookBackoffDelay(policy, attempts, kLargest);
    CHECK(longest < ceiling);
    CHECK(longest >= ceiling - absl::Nanoseconds(1));
    CHECK(WebhookBackoffDelay(policy, attempts, kLargest / 4) < ceiling / 4);
  }
  // The same random bits give the same delay: deterministic for a seeded generator.
  CHECK(WebhookBackoffDelay(policy, 5, 0x0123456789abcdef) ==
        WebhookBackoffDelay(policy, 5, 0x0123456789abcdef));
}

TEST_CASE(
    "a webhook delivery that keeps failing is retried on schedule then given up after 12 attempts",
    "[alerts][webhook_backoff]") {
  // Half of each ceiling: 0.5 1 2 4 8 16 32 64 128 150 150 s after the attempts before.
  const std::vector<absl::Duration> expected_offsets = {
      absl::Milliseconds(500),    absl::Milliseconds(1500),   absl::Milliseconds(3500),
      absl::Milliseconds(7500),   absl::Milliseconds(15500),  absl::Milliseconds(31500),
      absl::Milliseconds(63500),  absl::Milliseconds(127500), absl::Milliseconds(255500),
      absl::Milliseconds(405500), absl::Milliseconds(555500)};
  const WebhookRetryPolicy policy;
  absl::Time now = kFirst;
  std::vector<absl::Duration> offsets;
  for (int attempts_made = 1;; ++attempts_made) {
    const WebhookRetryDecision decision =
        NextWebhookAttempt(policy, attempts_made, kFirst, now, kHalfway);
    if (decision.give_up) {
      CHECK(attempts_made == 12);
      CHECK(decision.reason == "12 attempts made (at most 12)");
      break;
    }
    REQUIRE(attempts_made < 12);
    now = decision.next_attempt_at;
    offsets.push_back(now - kFirst);
  }
  CHECK(offsets == expected_offsets);
}

TEST_CASE("no webhook attempt is scheduled past the maximum age", "[alerts][webhook_backoff]") {
  const WebhookRetryPolicy policy;
  const absl::Time deadline = kFirst + absl::Hours(24);

  // Three attempts made, the last just before the deadline (a controller that was down): a
  // delay of up to 4 s would pass it.
  const WebhookRetryDecision late =
      NextWebhookAttempt(policy, 3, kFirst, deadline - absl::Seconds(1), kHalfway);
  CHECK(late.give_up);
  CHECK(late.reason ==
        "the next attempt would be 24h1s after the first, past the limit of 24h (3 attempts "
        "made)");

  // A delay that lands on the deadline itself is still allowed.
  const WebhookRetryDecision on_time =
      NextWebhookAttempt(policy, 3, kFirst, deadline - absl::Seconds(2), kHalfway);
  CHECK_FALSE(on_time.give_up);
  CHECK(on_time.next_attempt_at == deadline);

  // Past the deadline already: failed whatever the jitter.
  CHECK(NextWebhookAttempt(policy, 1, kFirst, deadline + absl::Seconds(1), 0).give_up);

  // A policy with a shorter age and more attempts gives up by age first.
  WebhookRetryPolicy short_lived;
  short_lived.max_age = absl::Minutes(10);
  short_lived.max_attempts = 100;
  const WebhookRetryDecision aged =
      NextWebhookAttempt(short_lived, 40, kFirst, kFirst + absl::Minutes(9), kHalfway);
  CHECK(aged.give_up);
  CHECK(aged.reason ==
        "the next attempt would be 11m30s after the first, past the limit of 10m (40 attempts "
        "made)");
}

TEST_CASE("a longer Retry-After wins over the webhook backoff up to the cap",
          "[alerts][webhook_backoff]") {
  const WebhookRetryPolicy policy;
  const absl::Time now = kFirst + absl::Seconds(10);
  struct Row {
    int attempts_made;
    absl::Duration retry_after;
    absl::Duration expected_delay;
  };
  const std::vector<Row> rows = {
      {1, absl::Seconds(120), absl::Seconds(120)},      // longer than 0.5 s: the receiver's
      {1, absl::Hours(1), absl::Minutes(5)},            // capped
      {1, absl::InfiniteDuration(), absl::Minutes(5)},  // an absurd header, capped
      {10, absl::Seconds(10), absl::Seconds(150)},      // shorter than the backoff: the backoff
      {1, absl::ZeroDuration(), absl::Milliseconds(500)},
  };
  for (const Row& row : rows) {
    INFO("attempts made: " << row.attempts_made << " retry-after: " << row.retry_after);
    const WebhookRetryDecision decision =
        NextWebhookAttempt(policy, row.attempts_made, kFirst, now, kHalfway, row.retry_after);
    REQUIRE_FALSE(decision.give_up);
    CHECK(decision.next_attempt_at - now == row.expected_delay);
  }
}

TEST_CASE("webhook Retry-After is read in seconds from 429 and 503 only",
          "[alerts][webhook_backoff]") {
  struct Row {
    int status;
    std::optional<std::string> header;
    std::optional<absl::Duration> expected;
  };
  const std::vector<Row> rows = {
      {429, "120", absl::Seconds(120)},
      {503, " 7 ", absl::Seconds(7)},
      {503, "0", absl::ZeroDuration()},
      {503, "99999999999", absl::InfiniteDuration()},
      {500, "120", std::nullopt},  // not a status that promises a time
      {200, "120", std::nullopt},
      {429, std::nullopt, std::nullopt},
      {429, "Wed, 21 Oct 2026 07:28:00 GMT", std::nullopt},  // the HTTP-date form
      {429, "-5", std::nullopt},
      {429, "+5", std::nullopt},
      {429, "1.5", std::nullopt},
      {429, "", std::nullopt},
  };
  for (const Row& row : rows) {
    INFO("status " << row.status << " Retry-After: " << row.header.value_or("(none)"));
    HttpHeaders headers;
    if (row.header.has_value()) headers.emplace_back("retry-after", *row.header);
    CHECK(WebhookRetryAfter(Response(row.status, headers)) == row.expected);
  }
  CHECK(WebhookRetryAfter(absl::UnavailableError("refused")) == std::nullopt);
}

TEST_CASE("webhook responses are classified as delivered retry or permanent",
          "[alerts][webhook_backoff]") {
  struct Row {
    int status;
    DeliveryOutcome expected;
  };
  const std::vector<Row> rows = {
      {200, DeliveryOutcome::kDelivered},
      {201, DeliveryOutcome::kDelivered},
      {204, DeliveryOutcome::kDelivered},
      {299, DeliveryOutcome::kDelivered},
      {408, DeliveryOutcome::kRetry},
      {429, DeliveryOutcome::kRetry},
      {500, DeliveryOutcome::kRetry},
      {502, DeliveryOutcome::kRetry},
      {503, DeliveryOutcome::kRetry},
      {504, DeliveryOutcome::kRetry},
      {599, DeliveryOutcome::kRetry},
      {400, DeliveryOutcome::kPermanentFailure},
      {401, DeliveryOutcome::kPermanentFailure},
      {403, DeliveryOutcome::kPermanentFailure},
      {404, DeliveryOutcome::kPermanentFailure},
      {410, DeliveryOutcome::kPermanentFailure},
      {413, DeliveryOutcome::kPermanentFailure},
      {422, DeliveryOutcome::kPermanentFailure},
      {301, DeliveryOutcome::kPermanentFailure},
      {307, DeliveryOutcome::kPermanentFailure},
      {100, DeliveryOutcome::kRetry},
      {600, DeliveryOutcome::kRetry},
  };
  for (const Row& row : rows) {
    INFO("HTTP " << row.status);
    CHECK(ClassifyWebhookResponse(Response(row.status)) == row.expected);
  }

  struct StatusRow {
    absl::Status status;
    DeliveryOutcome expected;
  };
  const std::vector<StatusRow> status_rows = {
      {absl::UnavailableError("connection refused"), DeliveryOutcome::kRetry},
      {absl::DeadlineExceededError("timed out"), DeliveryOutcome::kRetry},
      {absl::InternalError("TLS handshake failed"), DeliveryOutcome::kRetry},
      {absl::CancelledError("aborted"), DeliveryOutcome::kRetry},
      {absl::InvalidArgumentError("malformed URL"), DeliveryOutcome::kPermanentFailure},
  };
  for (const StatusRow& row : status_rows) {
    INFO(row.status.ToString());
    CHECK(ClassifyWebhookResponse(row.status) == row.expected);
  }
}

TEST_CASE("webhook delivery outcomes have stable names", "[alerts][webhook_backoff]") {
  CHECK(DeliveryOutcomeName(DeliveryOutcome::kDelivered) == "delivered");
  CHECK(DeliveryOutcomeName(DeliveryOutcome::kRetry) == "retry");
  CHECK(DeliveryOutcomeName(DeliveryOutcome::kPermanentFailure) == "permanent_failure");
}

}  // namespace
}  // namespace kvbench::controller
