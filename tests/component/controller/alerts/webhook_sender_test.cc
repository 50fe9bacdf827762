// WebhookSender over the real CurlHttpClient to a loopback receiver (TestHttpServer, port 0) that
// checks each request's Standard Webhooks signature as a receiver library would: what a user's
// endpoint sees, and what each of its answers (or its silence) becomes.

#include "controller/alerts/webhook_sender.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/http/curl_http_client.h"
#include "tests/fakes/fake_clock.h"
#include "tests/support/test_http_server.h"
#include "tests/support/unused_port.h"

namespace kvbench::controller {
namespace {

using ::kvbench::testing::FakeClock;
using ::kvbench::testing::TestHttpServer;

constexpr absl::string_view kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr absl::string_view kBody = R"({"type":"regression.detected","job":"nightly"})";
// Short, so the silent receiver's case ends quickly; ample for a loopback answer.
constexpr absl::Duration kShortTimeout = absl::Milliseconds(300);

WebhookKey Key() {
  absl::StatusOr<WebhookKey> key = WebhookKey::FromSecret(kSecret);
  REQUIRE(key.ok());
  return *key;
}

// A user's endpoint: verifies each request's signature and answers with the next status of its
// script (the last one repeats). Handlers run on the server's connection threads, so what they
// saw is recorded under a lock and checked on the test thread.
class Receiver {
 public:
  struct Seen {
    std::string id;
    std::string timestamp;
    std::string content_type;
    std::string body;
    bool signature_valid = false;
  };

  explicit Receiver(std::vector<int> statuses) : statuses_(std::move(statuses)) {}

  TestHttpServer::Response Answer(const TestHttpServer::Request& request) {
    Seen seen;
    seen.id = request.Header("webhook-id").value_or("");
    seen.timestamp = request.Header("webhook-timestamp").value_or("");
    seen.content_type = request.Header("content-type").value_or("");
    seen.body = request.body;
    int64_t timestamp = 0;
    seen.signature_valid = absl::SimpleAtoi(seen.timestamp, &timestamp) &&
                           VerifyWebhookSignature(Key(), seen.id, timestamp, request.body,
                                                  request.Header("webhook-signature").value_or(""));
    std::lock_guard<std::mutex> lock(mu_);
    const int status = statuses_[std::min(seen_.size(), statuses_.size() - 1)];
    seen_.push_back(std::move(seen));
    return TestHttpServer::Response{status, {}, absl::StrCat("answer ", seen_.size())};
  }

  std::vector<Seen> seen() const {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  const std::vector<int> statuses_;
  mutable std::mutex mu_;
  std::vector<Seen> seen_;  // guarded by mu_
};

std::unique_ptr<TestHttpServer> StartServer() {
  absl::StatusOr<std::unique_ptr<TestHttpServer>> server = TestHttpServer::Create();
  REQUIRE(server.ok());
  return *std::move(server);
}

std::unique_ptr<CurlHttpClient> Curl() {
  absl::StatusOr<std::unique_ptr<CurlHttpClient>> client = CurlHttpClient::Create();
  REQUIRE(client.ok());
  return *std::move(client);
}

// A receiver answering with `statuses` on a loopback server, and a sender to it over real curl.
struct Endpoint {
  explicit Endpoint(std::vector<int> statuses)
      : receiver(std::move(statuses)),
        server(StartServer()),
        curl(Curl()),
        sender(curl.get(), &clock) {
    server->Handle("POST", "/hook",
                   [this](const TestHttpServer::Request& r) { return receiver.Answer(r); });
  }

  Receiver receiver;  // outlives the server's threads
  std::unique_ptr<TestHttpServer> server;
  std::unique_ptr<CurlHttpClient> curl;
  FakeClock clock;
  const WebhookSender sender;
};

TEST_CASE("a webhook answered 200 is delivered once with a signature the receiver verifies",
          "[alerts]") {
  Endpoint endpoint({200});
  Receiver& receiver = endpoint.receiver;
  TestHttpServer* server = endpoint.server.get();
  const WebhookSender& sender = endpoint.sender;

  const DeliveryAttempt attempt =
      sender.Send(WebhookTarget{"ops", server->url("/hook"), Key()}, "alert_0001", kBody);

  CHECK(attempt.outcome == DeliveryOutcome::kDelivered);
  CHECK(attempt.http_status == 200);
  CHECK(attempt.detail == absl::StrCat("HTTP 200 from ", server->url("/hook"), ": answer 1"));
  CHECK(server->requests_received() == 1);
  const std::vector<Receiver::Seen> seen = receiver.seen();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].signature_valid);
  CHECK(seen[0].id == "alert_0001");
  CHECK(seen[0].timestamp == absl::StrCat(FakeClock::kStartUnixSeconds));
  CHECK(seen[0].content_type == "application/json");
  CHECK(seen[0].body == kBody);
}

TEST_CASE("a webhook answered 503 is retried and the retry is delivered", "[alerts]") {
  Endpoint endpoint({503, 200});
  Receiver& receiver = endpoint.receiver;
  TestHttpServer* server = endpoint.server.get();
  FakeClock& clock = endpoint.clock;
  const WebhookSender& sender = endpoint.sender;
  const WebhookTarget target{"ops", server->url("/hook"), Key()};

  const DeliveryAttempt first = sender.Send(target, "alert_0002", kBody);
  CHECK(first.outcome == DeliveryOutcome::kRetry);
  CHECK(first.http_status == 503);
  CHECK(first.detail == absl::StrCat("HTTP 503 from ", server->url("/hook"), ": answer 1"));
  clock.AdvanceTime(absl::Seconds(2));
  const DeliveryAttempt second = sender.Send(target, "alert_0002", kBody);
  CHECK(second.outcome == DeliveryOutcome::kDelivered);
  CHECK(second.http_status == 200);

  const std::vector<Receiver::Seen> seen = receiver.seen();
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].signature_valid);
  CHECK(seen[1].signature_valid);
  CHECK(seen[0].id == seen[1].id);  // the receiver's idempotency key
  CHECK(seen[1].timestamp == absl::StrCat(FakeClock::kStartUnixSeconds + 2));
}

TEST_CASE("a webhook answered 400 is a permanent failure", "[alerts]") {
  Endpoint endpoint({400});
  Receiver& receiver = endpoint.receiver;
  TestHttpServer* server = endpoint.server.get();
  const WebhookSender& sender = endpoint.sender;

  const DeliveryAttempt attempt =
      sender.Send(WebhookTarget{"ops", server->url("/hook"), Key()}, "alert_0003", kBody);

  CHECK(attempt.outcome == DeliveryOutcome::kPermanentFailure);
  CHECK(attempt.http_status == 400);
  CHECK(attempt.detail == absl::StrCat("HTTP 400 from ", server->url("/hook"), ": answer 1"));
  REQUIRE(receiver.seen().size() == 1);
  CHECK(receiver.seen()[0].signature_valid);
}

TEST_CASE("a webhook to a closed port is retried with a connection refused detail", "[alerts]") {
  const int port = kvbench::testing::UnusedLoopbackPort();
  REQUIRE(port != 0);
  const std::string url = absl::StrCat("http://127.0.0.1:", port, "/hook");
  std::unique_ptr<CurlHttpClient> curl = Curl();
  FakeClock clock;
  const WebhookSender sender(curl.get(), &clock);

  const DeliveryAttempt attempt =
      sender.Send(WebhookTarget{"ops", url, Key(), kShortTimeout}, "alert_0004", kBody);

  INFO(attempt.detail);
  CHECK(attempt.outcome == DeliveryOutcome::kRetry);
  CHECK(attempt.http_status == 0);
  // curl's words for a refused connection: CURLE_COULDNT_CONNECT (7), "Failed to connect to
  // HOST port N"; curl 7.88 (Debian 12) ends with "Couldn't connect to server", curl 8 with the
  // system's "Connection refused".
  CHECK(absl::StartsWith(attempt.detail, absl::StrCat("UNAVAILABLE: POST ", url,
                                                      ": Failed to connect to 127.0.0.1 "
                                                      "port ",
                                                      port)));
  CHECK(absl::EndsWith(attempt.detail, "(curl error 7)"));
}

TEST_CASE("a webhook receiver that never answers is retried after the target timeout", "[alerts]") {
  std::unique_ptr<TestHttpServer> server = StartServer();
  TestHttpServer* const raw_server = server.get();
  // Holds the request until the server stops (its destructor releases the gate).
  server->Handle("POST", "/hook", [raw_server](const TestHttpServer::Request&) {
    raw_server->AwaitGate("never");
    return TestHttpServer::Response{200, {}, "too late"};
  });
  std::unique_ptr<CurlHttpClient> curl = Curl();
  FakeClock clock;
  const WebhookSender sender(curl.get(), &clock);

  const DeliveryAttempt attempt = sender.Send(
      WebhookTarget{"ops", server->url("/hook"), Key(), kShortTimeout}, "alert_0005", kBody);

  INFO(attempt.detail);
  CHECK(attempt.outcome == DeliveryOutcome::kRetry);
  CHECK(attempt.http_status == 0);
  CHECK(absl::StartsWith(attempt.detail, "DEADLINE_EXCEEDED: POST "));
  // The request arrived and was still unanswered: the client's timeout ended the attempt.
  CHECK(server->requests_received() == 1);
}

}  // namespace
}  // namespace kvbench::controller
