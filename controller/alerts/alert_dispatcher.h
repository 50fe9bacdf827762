#pragma once

// Delivers stored regression alerts to the configured webhooks, on a thread of its
// own: each pending delivery (RegressionStore) is sent signed (WebhookSender), and its new state
// stored after every attempt — delivered, retried later with backoff (NextWebhookAttempt) or
// failed for good. The state lives in the store, so a restarted controller resumes exactly where
// it stopped: nothing delivered is sent again, nothing pending is lost. The one window left is a
// crash between a receiver's 2xx and the store's write: that delivery is sent again with the same
// webhook-id, which receivers use to drop duplicates (the specification's idempotency key).

#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/http/http_client.h"
#include "common/time/clock.h"
#include "controller/alerts/webhook_backoff.h"
#include "controller/alerts/webhook_sender.h"
#include "controller/store/regression_store.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::controller {

// A pending delivery is looked at again at least this often even when nothing wakes the worker
// (a clock jump, a store written by a restore).
inline constexpr absl::Duration kDeliveryPollPeriod = absl::Seconds(30);
// Deliveries sent per pass before the worker checks whether it should stop.
inline constexpr int kDeliveriesPerPass = 16;

// The webhook-id of an alert: "kvb_" + the first 32 hex digits of SHA-256 of its alert_id (alert
// ids hold '.' from host names; the specification's ids must not).
std::string WebhookIdOf(const std::string& alert_id);

// The configured webhooks with their secrets read: INVALID_ARGUMENT naming the webhook (name
// missing or repeated, bad URL), NOT_FOUND naming a secret file that cannot be read.
absl::StatusOr<std::vector<WebhookTarget>> LoadWebhookTargets(
    const google::protobuf::RepeatedPtrField<v1::WebhookConfig>& webhooks);

class AlertDispatcher {
 public:
  // Borrowed: all must outlive the dispatcher. Starts its thread.
  AlertDispatcher(std::vector<WebhookTarget> targets, RegressionStore* store,
                  HttpClient* http_client, const Clock* clock,
                  WebhookRetryPolicy policy = WebhookRetryPolicy());
  ~AlertDispatcher();  // Stop()s
  AlertDispatcher(const AlertDispatcher&) = delete;
  AlertDispatcher& operator=(const AlertDispatcher&) = delete;

  // New alerts were stored: look now.
  void Wake();
  // Ends the thread after the attempt in flight (bounded by the target's timeout). Idempotent.
  void Stop();

 private:
  void Run();
  // Sends what is due; returns when the next pending delivery is due (nullopt: none pending).
  std::optional<absl::Time> DeliverDue();
  void Deliver(const DueDelivery& due);

  const std::map<std::string, WebhookTarget> targets_;
  RegressionStore* const store_;
  const Clock* const clock_;
  const WebhookRetryPolicy policy_;
  WebhookSender sender_;
  std::mt19937_64 random_;  // worker thread only: backoff jitter
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool woken_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace kvbench::controller
