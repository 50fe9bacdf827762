// WebhookSender over FakeHttpClient and FakeClock: what goes on the wire (signed headers, the body
// unchanged, the timeout) and what each answer becomes (outcome, status, one-line detail).

#include "controller/alerts/webhook_sender.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_http_client.h"

namespace kvbench::controller {
namespace {

using ::kvbench::testing::FakeClock;
using ::kvbench::testing::FakeHttpClient;

constexpr absl::string_view kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr absl::string_view kUrl = "http://127.0.0.1:4321/hook";
constexpr absl::string_view kBody = R"({"type":"regression.detected","job":"nightly"})";

WebhookTarget Target(absl::string_view url = kUrl) {
  absl::StatusOr<WebhookKey> key = WebhookKey::FromSecret(kSecret);
  REQUIRE(key.ok());
  return WebhookTarget{"ops", std::string(url), *key, absl::Seconds(3)};
}

std::string HeaderOf(const HttpRequest& request, absl::string_view name) {
  std::optional<std::string> found;
  for (const auto& [header_name, value] : request.headers) {
    if (header_name == name) {
      REQUIRE_FALSE(found.has_value());  // exactly once
      found = value;
    }
  }
  REQUIRE(found.has_value());
  return *found;
}

// Whether `request` carries a valid signature of its own id, timestamp and body.
bool SignatureVerifies(const HttpRequest& request) {
  int64_t timestamp = 0;
  REQUIRE(absl::SimpleAtoi(HeaderOf(request, "webhook-timestamp"), &timestamp));
  return VerifyWebhookSignature(Target().key, HeaderOf(request, "webhook-id"), timestamp,
                                request.body, HeaderOf(request, "webhook-signature"));
}

struct Fixture {
  FakeHttpClient http;
  FakeClock clock;
  WebhookSender sender{&http, &clock};
};

TEST_CASE("a webhook delivery is posted with the body unchanged and signed at the clock time",
          "[alerts][webhook_sender]") {
  Fixture f;
  f.http.EnqueueResponse(std::string(kUrl), FakeHttpClient::MakeResponse(204, ""));

  const DeliveryAttempt attempt = f.sender.Send(Target(), "alert_0001", kBody);

  CHECK(attempt.outcome == DeliveryOutcome::kDelivered);
  CHECK(attempt.http_status == 204);
  CHECK(attempt.detail == "HTTP 204 from http://127.0.0.1:4321/hook");
  CHECK(attempt.retry_after == absl::ZeroDuration());
  CHECK(attempt.attempted_at == f.clock.Now());
  const std::vector<HttpRequest> requests = f.http.requests();
  REQUIRE(requests.size() == 1);
  const HttpRequest& request = requests[0];
  CHECK(request.method == "POST");
  CHECK(request.url == kUrl);
  CHECK(request.body == kBody);
  CHECK(request.timeout == absl::Seconds(3));
  CHECK(request.connect_timeout == absl::Seconds(3));
  CHECK(HeaderOf(request, "webhook-id") == "alert_0001");
  CHECK(HeaderOf(request, "webhook-timestamp") == absl::StrCat(FakeClock::kStartUnixSeconds));
  CHECK(HeaderOf(request, "content-type") == "application/json");
  CHECK(SignatureVerifies(request));
}

TEST_CASE("a retried webhook delivery keeps its id and is signed at the new time",
          "[alerts][webhook_sender]") {
  Fixture f;
  f.http.EnqueueResponse(std::string(kUrl), FakeHttpClient::MakeResponse(503, "busy"));
  f.http.EnqueueResponse(std::string(kUrl), FakeHttpClient::MakeResponse(200, "ok"));

  CHECK(f.sender.Send(Target(), "alert_0002", kBody).outcome == DeliveryOutcome::kRetry);
  f.clock.AdvanceTime(absl::Seconds(90));
  CHECK(f.sender.Send(Target(), "alert_0002", kBody).outcome == DeliveryOutcome::kDelivered);

  const std::vector<HttpRequest> requests = f.http.requests();
  REQUIRE(requests.size() == 2);
  CHECK(HeaderOf(requests[1], "webhook-id") == "alert_0002");
  CHECK(HeaderOf(requests[1], "webhook-timestamp") ==
        absl::StrCat(FakeClock::kStartUnixSeconds + 90));
  CHECK(HeaderOf(requests[0], "webhook-signature") != HeaderOf(requests[1], "webhook-signature"));
  CHECK(SignatureVerifies(requests[0]));
  CHECK(SignatureVerifies(requests[1]));
}

TEST_CASE("each webhook answer gives its outcome status and detail", "[alerts][webhook_sender]") {
  struct Row {
    absl::StatusOr<HttpResponse> response;
    DeliveryOutcome outcome;
    int http_status;
    std::string detail;
    absl::Duration retry_after = absl::ZeroDuration();
  };
  const std::vector<Row> rows = {
      {FakeHttpClient::MakeResponse(200, "thanks"), DeliveryOutcome::kDelivered, 200,
       "HTTP 200 from http://127.0.0.1:4321/hook: thanks"},
      {FakeHttpClient::MakeResponse(503, "down for maintenance", {{"Retry-After", "30"}}),
       DeliveryOutcome::kRetry, 503,
       "HTTP 503 from http://127.0.0.1:4321/hook: down for maintenance", absl::Seconds(30)},
      {FakeHttpClient::MakeResponse(429, "", {{"Retry-After", "5"}}), DeliveryOutcome::kRetry, 429,
       "HTTP 429 from http://127.0.0.1:4321/hook", absl::Seconds(5)},
      {FakeHttpClient::MakeResponse(500, "{\"error\":\"boom\"}\n"), DeliveryOutcome::kRetry, 500,
       "HTTP 500 from http://127.0.0.1:4321/hook: {\"error\":\"boom\"} "},
      {FakeHttpClient::MakeResponse(400, "bad payload"), DeliveryOutcome::kPermanentFailure, 400,
       "HTTP 400 from http://127.0.0.1:4321/hook: bad payload"},
      {FakeHttpClient::MakeResponse(410, ""), DeliveryOutcome::kPermanentFailure, 410,
       "HTTP 410 from http://127.0.0.1:4321/hook"},
      {FakeHttpClient::MakeResponse(308, "", {{"Location", "https://alerts.example/hook?k=1"}}),
       DeliveryOutcome::kPermanentFailure, 308,
       "HTTP 308 from http://127.0.0.1:4321/hook (redirects are not followed: point the webhook "
       "at https://alerts.example/hook?***)"},
      {absl::UnavailableError("POST http://127.0.0.1:4321/hook: Failed to connect: Connection "
                              "refused (curl error 7)"),
       DeliveryOutcome::kRetry, 0,
       "UNAVAILABLE: POST http://127.0.0.1:4321/hook: Failed to connect: Connection refused "
       "(curl error 7)"},
      {absl::DeadlineExceededError("POST http://127.0.0.1:4321/hook: timed out"),
       DeliveryOutcome::kRetry, 0, "DEADLINE_EXCEEDED: POST http://127.0.0.1:4321/hook: timed out"},
      {absl::InvalidArgumentError("bad request header"), DeliveryOutcome::kPermanentFailure, 0,
       "INVALID_ARGUMENT: bad request header"},
  };
  for (const Row& row : rows) {
    INFO(row.detail);
    Fixture f;
    f.http.EnqueueResponse(std::string(kUrl), row.response);
    const DeliveryAttempt attempt = f.sender.Send(Target(), "alert_0003", kBody);
    CHECK(attempt.outcome == row.outcome);
    CHECK(attempt.http_status == row.http_status);
    CHECK(attempt.detail == row.detail);
    CHECK(attempt.retry_after == row.retry_after);
  }
}

TEST_CASE("a long or binary webhook error body is cut to one printable line",
          "[alerts][webhook_sender]") {
  Fixture f;
  std::string body = "line one\r\nline\ttwo \x01\xff ";
  body.append(1000, 'x');
  f.http.EnqueueResponse(std::string(kUrl), FakeHttpClient::MakeResponse(502, body));

  const DeliveryAttempt attempt = f.sender.Send(Target(), "alert_0004", kBody);

  const std::string expected_excerpt =
      absl::StrCat("line one  line two ?? ", std::string(kWebhookDetailBodyBytes - 22, 'x'));
  CHECK(attempt.detail == absl::StrCat("HTTP 502 from http://127.0.0.1:4321/hook: ",
                                       expected_excerpt, "... (", body.size(), " bytes)"));
}

TEST_CASE("a webhook error body is read in chunks and only its start is kept",
          "[alerts][webhook_sender]") {
  // A receiver may answer with gigabytes: what the detail shows is kept, the rest only counted.
  Fixture f;
  f.http.EnqueueResponse(std::string(kUrl), FakeHttpClient::MakeResponse(500, ""));
  f.http.SetStreamChunks(std::string(kUrl),
                         {std::string(150, 'a'), std::string(150, 'b'), std::string(1 << 20, 'c')});

  const DeliveryAttempt attempt = f.sender.Send(Target(), "alert_0005", kBody);

  CHECK(attempt.http_status == 500);
  CHECK(attempt.detail ==
        absl::StrCat("HTTP 500 from http://127.0.0.1:4321/hook: ", std::string(150, 'a'),
                     std::string(kWebhookDetailBodyBytes - 150, 'b'), "... (", 300 + (1 << 20),
                     " bytes)"));
}

TEST_CASE("webhook details hide credentials in the URL and never show the key",
          "[alerts][webhook_sender]") {
  const std::string url = "https://bot:hunter2@hooks.example:8443/v1/alerts?token=s3cr3t";
  Fixture f;
  f.http.EnqueueResponse(url, FakeHttpClient::MakeResponse(401, "who are you"));
  f.http.EnqueueResponse(url, absl::UnavailableError(absl::StrCat("POST ", url, ": reset")));

  const DeliveryAttempt rejected = f.sender.Send(Target(url), "alert_0005", kBody);
  CHECK(rejected.detail ==
        "HTTP 401 from https://***@hooks.example:8443/v1/alerts?***: who are you");
  const DeliveryAttempt reset = f.sender.Send(Target(url), "alert_0005", kBody);
  CHECK(reset.detail == "UNAVAILABLE: POST https://***@hooks.example:8443/v1/alerts?***: reset");
  // The real URL still went on the wire.
  REQUIRE(f.http.requests().size() == 2);
  CHECK(f.http.requests()[0].url == url);
  for (const std::string& detail : {rejected.detail, reset.detail}) {
    CHECK_FALSE(absl::StrContains(detail, "hunter2"));
    CHECK_FALSE(absl::StrContains(detail, "s3cr3t"));
    CHECK_FALSE(absl::StrContains(detail, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
  }
}

TEST_CASE("a bad webhook URL or delivery id fails for good without sending",
          "[alerts][webhook_sender]") {
  Fixture f;
  const DeliveryAttempt bad_url = f.sender.Send(Target("ftp://files.example/hook"), "a1", kBody);
  CHECK(bad_url.outcome == DeliveryOutcome::kPermanentFailure);
  CHECK(bad_url.http_status == 0);
  CHECK(bad_url.detail ==
        "webhook URL \"ftp://files.example/hook\": must start with http:// or https://");

  const DeliveryAttempt bad_id = f.sender.Send(Target(), "job.1", kBody);
  CHECK(bad_id.outcome == DeliveryOutcome::kPermanentFailure);
  CHECK(bad_id.detail ==
        "webhook id \"job.1\": character 4 is not allowed (visible ASCII other than '.' only)");
  CHECK(f.http.requests().empty());
}

TEST_CASE("webhook URLs must be absolute http or https with a host", "[alerts][webhook_sender]") {
  for (absl::string_view good :
       {"http://127.0.0.1:4321/hook", "https://hooks.example", "HTTPS://hooks.example/a?b=c#d",
        "http://[::1]:8080/hook", "http://user:pw@host/x", "http://host:65535"}) {
    INFO(good);
    CHECK(ValidateWebhookUrl(good).ok());
  }
  struct Bad {
    std::string url;
    std::string message;
  };
  const std::vector<Bad> bad = {
      {"", "webhook URL: empty"},
      {"hooks.example/hook",
       "webhook URL \"hooks.example/hook\": must start with http:// or "
       "https://"},
      {"file:///etc/passwd",
       "webhook URL \"file:///etc/passwd\": must start with http:// or "
       "https://"},
      {"http:///hook", "webhook URL \"http:///hook\": no host"},
      {"http://user:pw@/hook", "webhook URL \"http://***@/hook\": no host"},
      {"http://:80/hook", "webhook URL \"http://:80/hook\": no host"},
      {"http://host:0/x", "webhook URL \"http://host:0/x\": port \"0\" is not a number in 1-65535"},
      {"http://host:99999",
       "webhook URL \"http://host:99999\": port \"99999\" is not a number in "
       "1-65535"},
      {"http://host:/x", "webhook URL \"http://host:/x\": port \"\" is not a number in 1-65535"},
      {"http://[::1/x", "webhook URL \"http://[::1/x\": unclosed '[' in the host"},
      {"http://[::1]x/y", "webhook URL \"http://[::1]x/y\": unexpected text after ']'"},
      {"http://host/a b",
       "webhook URL \"http://host/a b\": character 14 is whitespace, a control "
       "character or not ASCII (percent-encode it)"},
      {"http://host/\n",
       "webhook URL \"http://host/\\n\": character 13 is whitespace, a control "
       "character or not ASCII (percent-encode it)"},
      {"http://host/?token=abc def",
       "webhook URL \"http://host/?***\": character 23 is "
       "whitespace, a control character or not ASCII "
       "(percent-encode it)"},
  };
  for (const Bad& row : bad) {
    INFO(row.url);
    const absl::Status status = ValidateWebhookUrl(row.url);
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK(status.message() == row.message);
  }
}

}  // namespace
}  // namespace kvbench::controller
