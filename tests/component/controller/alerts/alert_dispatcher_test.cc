// AlertDispatcher over a real SQLite store, the real CurlHttpClient and a loopback receiver that
// checks the Standard Webhooks signature: a stored alert is delivered once; a receiver answering
// 503 gets it again after the backoff; a dispatcher stopped with the delivery pending (a
// controller killed) leaves it to the next one, which delivers it once; a webhook no longer in
// the config fails the delivery, named; a delivery waiting out a long backoff is sent at once when
// an operator asks for it again (RedeliverNow, then Wake: what kvctl alerts redeliver does); a
// receiver that hangs delays none of another's deliveries (one worker per webhook).

#include "controller/alerts/alert_dispatcher.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/http/curl_http_client.h"
#include "common/time/clock.h"
#include "controller/store/regression_store.h"
#include "controller/store/sql_store.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_http_server.h"
#include "tests/support/wait_for.h"

namespace kvbench::controller {
namespace {

using testing::TestHttpServer;

constexpr char kDispatcherSecret[] = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

// What the receiver saw: each request's webhook-id and whether its signature verified.
struct Received {
  std::mutex mu;
  std::vector<std::string> ids;
  std::vector<bool> valid;
  std::atomic<int> unavailable_left{0};  // answer 503 to this many first

  size_t count() {
    std::lock_guard<std::mutex> lock(mu);
    return ids.size();
  }
};

void Serve(TestHttpServer& server, Received* received, const WebhookKey& key) {
  server.Handle("POST", "/hook", [received, key](const TestHttpServer::Request& request) {
    int64_t timestamp = 0;
    const std::string id = request.Header("webhook-id").value_or("");
    const bool valid =
        absl::SimpleAtoi(request.Header("webhook-timestamp").value_or(""), &timestamp) &&
        VerifyWebhookSignature(key, id, timestamp, request.body,
                               request.Header("webhook-signature").value_or(""));
    {
      std::lock_guard<std::mutex> lock(received->mu);
      received->ids.push_back(id);
      received->valid.push_back(valid);
    }
    if (received->unavailable_left.fetch_sub(1) > 0) {
      // Honoured up to the policy's cap: milliseconds with FastRetries, an hour with SlowRetries.
      return TestHttpServer::Response{503, {{"Retry-After", "3600"}}, ""};
    }
    return TestHttpServer::Response{200, {}, ""};
  });
}

v1::RunAnalysis OneAlert(const std::string& job_id) {
  v1::RunAnalysis analysis;
  analysis.set_job_id(job_id);
  analysis.set_schedule("nightly");
  v1::RegressionAlert* alert = analysis.add_alerts();
  alert->set_alert_id(job_id + "/diff/gpu-c16@gpu-node.example.com/ttft_p95_s");
  alert->set_schedule("nightly");
  alert->set_job_id(job_id);
  alert->set_metric("ttft_p95_s");
  alert->set_change(41.2);
  return analysis;
}

// A fast policy: the test waits milliseconds, not seconds, for a retry.
WebhookRetryPolicy FastRetries() {
  WebhookRetryPolicy policy;
  policy.base = absl::Milliseconds(20);
  policy.cap = absl::Milliseconds(100);
  return policy;
}

// A policy under which a refused delivery waits an hour (the receiver's Retry-After).
WebhookRetryPolicy SlowRetries() {
  WebhookRetryPolicy policy;
  policy.cap = absl::Hours(1);
  return policy;
}

// The store as a dispatcher sees it, counting the dispatcher's passes: a pass ends by asking when
// the next delivery is due, after it has sent everything due.
class PassCountingStore : public RegressionStore {
 public:
  explicit PassCountingStore(RegressionStore* store) : store_(store) {}

  int passes() const { return passes_.load(); }

  absl::StatusOr<bool> RecordAnalysis(const v1::RunAnalysis& analysis,
                                      const std::vector<std::string>& webhooks,
                                      absl::Time now) override {
    return store_->RecordAnalysis(analysis, webhooks, now);
  }
  absl::StatusOr<std::optional<v1::RunAnalysis>> GetAnalysis(const std::string& job_id) override {
    return store_->GetAnalysis(job_id);
  }
  absl::StatusOr<std::vector<v1::ChangePoint>> ListChangePoints(
      const std::string& schedule) override {
    return store_->ListChangePoints(schedule);
  }
  absl::Status SetBaseline(const v1::Baseline& baseline) override {
    return store_->SetBaseline(baseline);
  }
  absl::StatusOr<v1::Baseline> GetBaseline(const std::string& schedule) override {
    return store_->GetBaseline(schedule);
  }
  absl::StatusOr<std::vector<v1::AlertWithDeliveries>> ListAlerts(const std::string& schedule,
                                                                  const std::string& job_id,
                                                                  int limit) override {
    return store_->ListAlerts(schedule, job_id, limit);
  }
  absl::StatusOr<std::vector<DueDelivery>> DueDeliveries(absl::Time now, int limit,
                                                         const std::string& webhook) override {
    return store_->DueDeliveries(now, limit, webhook);
  }
  absl::StatusOr<std::optional<absl::Time>> NextDeliveryTime(const std::string& webhook) override {
    absl::StatusOr<std::optional<absl::Time>> next = store_->NextDeliveryTime(webhook);
    ++passes_;
    return next;
  }
  absl::StatusOr<std::vector<std::string>> PendingWebhooks() override {
    return store_->PendingWebhooks();
  }
  absl::Status UpdateDelivery(const v1::AlertDelivery& delivery) override {
    return store_->UpdateDelivery(delivery);
  }
  absl::StatusOr<int> RedeliverNow(const std::string& webhook, bool include_failed,
                                   absl::Time now) override {
    return store_->RedeliverNow(webhook, include_failed, now);
  }
  absl::StatusOr<std::map<v1::DeliveryState, int64_t>> CountDeliveries() override {
    return store_->CountDeliveries();
  }

 private:
  RegressionStore* const store_;
  std::atomic<int> passes_{0};
};

struct Fixture {
  Fixture() {
    auto opened = SqlStore::OpenSqlite(dir.path() + "/controller.db");
    REQUIRE(opened.ok());
    store = *std::move(opened);
    auto made = TestHttpServer::Create();
    REQUIRE(made.ok());
    server = *std::move(made);
    auto http_client = CurlHttpClient::Create();
    REQUIRE(http_client.ok());
    http = *std::move(http_client);
    key = *WebhookKey::FromSecret(kDispatcherSecret);
    Serve(*server, &received, key);
  }

  std::vector<WebhookTarget> Targets() {
    return {WebhookTarget{"ops", server->url("/hook"), key, absl::Seconds(5)}};
  }
  std::map<v1::DeliveryState, int64_t> Counts() { return *store->Regressions().CountDeliveries(); }

  testing::TempDir dir;
  Received received;  // outlives the server's threads
  std::unique_ptr<SqlStore> store;
  std::unique_ptr<TestHttpServer> server;
  std::unique_ptr<CurlHttpClient> http;
  WebhookKey key = *WebhookKey::FromSecret(kDispatcherSecret);
  RealClock clock;
};

TEST_CASE("A stored alert reaches its webhook once and signed", "[alerts]") {
  Fixture f;
  REQUIRE(*f.store->Regressions().RecordAnalysis(OneAlert("job-1"), {"ops"}, f.clock.Now()));
  AlertDispatcher dispatcher(f.Targets(), &f.store->Regressions(), f.http.get(), &f.clock,
                             FastRetries());
  REQUIRE(testing::WaitFor([&] { return f.Counts()[v1::DELIVERY_DELIVERED] == 1; }));
  dispatcher.Stop();
  REQUIRE(f.received.count() == 1);
  CHECK(f.received.valid[0]);
  // The webhook-id is the alert's, without the host name's dots.
  CHECK(f.received.ids[0] == WebhookIdOf("job-1/diff/gpu-c16@gpu-node.example.com/ttft_p95_s"));
  CHECK(f.received.ids[0].find('.') == std::string::npos);
  const auto alerts = *f.store->Regressions().ListAlerts("", "", 10);
  CHECK(alerts[0].deliveries(0).attempts() == 1);
}

TEST_CASE("A 503 is retried after the backoff and then delivered", "[alerts]") {
  Fixture f;
  f.received.unavailable_left = 2;
  REQUIRE(*f.store->Regressions().RecordAnalysis(OneAlert("job-1"), {"ops"}, f.clock.Now()));
  AlertDispatcher dispatcher(f.Targets(), &f.store->Regressions(), f.http.get(), &f.clock,
                             FastRetries());
  REQUIRE(testing::WaitFor([&] { return f.Counts()[v1::DELIVERY_DELIVERED] == 1; }));
  dispatcher.Stop();
  CHECK(f.received.count() == 3);
  std::lock_guard<std::mutex> lock(f.received.mu);
  CHECK(std::set<std::string>(f.received.ids.begin(), f.received.ids.end()).size() == 1);
  CHECK((*f.store->Regressions().ListAlerts("", "", 10))[0].deliveries(0).attempts() == 3);
}

TEST_CASE("A delivery pending when the dispatcher stops is delivered once by the next",
          "[alerts]") {
  Fixture f;
  f.received.unavailable_left = 1000000;  // down until told otherwise
  REQUIRE(*f.store->Regressions().RecordAnalysis(OneAlert("job-1"), {"ops"}, f.clock.Now()));
  {
    AlertDispatcher first(f.Targets(), &f.store->Regressions(), f.http.get(), &f.clock,
                          FastRetries());
    REQUIRE(testing::WaitFor([&] { return f.received.count() >= 1; }));
  }  // stopped with the delivery pending, as a killed controller leaves it
  CHECK(f.Counts()[v1::DELIVERY_PENDING] == 1);
  const size_t refused = f.received.count();
  f.received.unavailable_left = 0;
  AlertDispatcher second(f.Targets(), &f.store->Regressions(), f.http.get(), &f.clock,
                         FastRetries());
  REQUIRE(testing::WaitFor([&] { return f.Counts()[v1::DELIVERY_DELIVERED] == 1; }));
  second.Stop();
  CHECK(f.received.count() == refused + 1);
  // A third dispatcher finds nothing to send. It is stopped only after it has looked through the
  // store, at start and once woken: a Stop that came first would leave nothing sent whatever the
  // store held.
  PassCountingStore counting(&f.store->Regressions());
  AlertDispatcher third(f.Targets(), &counting, f.http.get(), &f.clock, FastRetries());
  REQUIRE(testing::WaitFor([&] { return counting.passes() >= 1; }));
  third.Wake();
  REQUIRE(testing::WaitFor([&] { return counting.passes() >= 2; }));
  third.Stop();
  CHECK(f.received.count() == refused + 1);
  CHECK(f.Counts()[v1::DELIVERY_DELIVERED] == 1);
  CHECK((*f.store->Regressions().ListAlerts("", "", 10))[0].deliveries(0).attempts() ==
        static_cast<int>(refused + 1));
}

TEST_CASE("A delivery to a webhook gone from the config fails naming it", "[alerts]") {
  Fixture f;
  REQUIRE(*f.store->Regressions().RecordAnalysis(OneAlert("job-1"), {"old-hook"}, f.clock.Now()));
  AlertDispatcher dispatcher(f.Targets(), &f.store->Regressions(), f.http.get(), &f.clock,
                             FastRetries());
  REQUIRE(testing::WaitFor([&] { return f.Counts()[v1::DELIVERY_FAILED] == 1; }));
  dispatcher.Stop();
  CHECK(f.received.count() == 0);
  CHECK((*f.store->Regressions().ListAlerts("", "", 10))[0].deliveries(0).last_detail() ==
        "webhook \"old-hook\" is no longer in the controller's config");
}

TEST_CASE("A redelivery sends a delivery waiting out its backoff now and once", "[alerts]") {
  Fixture f;
  f.received.unavailable_left = 1;
  REQUIRE(*f.store->Regressions().RecordAnalysis(OneAlert("job-1"), {"ops"}, f.clock.Now()));
  AlertDispatcher dispatcher(f.Targets(), &f.store->Regressions(), f.http.get(), &f.clock,
                             SlowRetries());
  REQUIRE(testing::WaitFor([&] { return f.received.count() == 1; }));
  REQUIRE(testing::WaitFor([&] {
    const auto alerts = *f.store->Regressions().ListAlerts("", "", 10);
    return alerts[0].deliveries(0).attempts() == 1;
  }));
  const absl::Time next = **f.store->Regressions().NextDeliveryTime("ops");
  CHECK(next - f.clock.Now() > absl::Minutes(59));

  REQUIRE(*f.store->Regressions().RedeliverNow("ops", /*include_failed=*/false, f.clock.Now()) ==
          1);
  dispatcher.Wake();
  REQUIRE(testing::WaitFor([&] { return f.Counts()[v1::DELIVERY_DELIVERED] == 1; }));
  dispatcher.Stop();
  CHECK(f.received.count() == 2);
  CHECK((*f.store->Regressions().ListAlerts("", "", 10))[0].deliveries(0).attempts() == 2);
  // Nothing is left to redeliver.
  CHECK(*f.store->Regressions().RedeliverNow("", /*include_failed=*/true, f.clock.Now()) == 0);
}

TEST_CASE("A hung receiver delays none of another webhook's deliveries", "[alerts]") {
  Fixture f;  // its receiver, "ops", answers at once
  auto made = TestHttpServer::Create();
  REQUIRE(made.ok());
  std::unique_ptr<TestHttpServer> hung = *std::move(made);
  std::atomic<int> hung_requests{0};
  TestHttpServer* hung_server = hung.get();
  hung->Handle("POST", "/hook", [hung_server, &hung_requests](const TestHttpServer::Request&) {
    ++hung_requests;
    hung_server->AwaitGate("never", absl::Minutes(5));  // released by Stop()
    return TestHttpServer::Response{200, {}, ""};
  });
  constexpr int kAlerts = 80;
  for (int i = 0; i < kAlerts; ++i) {
    REQUIRE(*f.store->Regressions().RecordAnalysis(OneAlert(absl::StrCat("job-", i)),
                                                   {"hung", "ops"}, f.clock.Now()));
  }
  std::vector<WebhookTarget> targets = f.Targets();
  targets.push_back(WebhookTarget{"hung", hung->url("/hook"), f.key, absl::Seconds(3)});
  const auto start = std::chrono::steady_clock::now();
  AlertDispatcher dispatcher(std::move(targets), &f.store->Regressions(), f.http.get(), &f.clock,
                             FastRetries());
  // One at a time behind the hung receiver, this took 80 × 3 s; the bound is far from both.
  REQUIRE(testing::WaitFor([&] { return f.Counts()[v1::DELIVERY_DELIVERED] == kAlerts; },
                           absl::Seconds(60)));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("80 alerts reached the healthy receiver in " << seconds
                                                    << " s beside a hung one (timeout 3 s)");
  CHECK(f.received.count() == kAlerts);
  CHECK(hung_requests.load() >= 1);
  CHECK(f.Counts()[v1::DELIVERY_PENDING] == kAlerts);  // the hung receiver's, still pending
  hung->Stop();
  dispatcher.Stop();
}

}  // namespace
}  // namespace kvbench::controller
