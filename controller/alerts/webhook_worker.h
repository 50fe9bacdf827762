#pragma once

// Delivers the pending alerts of one webhook, on a thread of its own, so a receiver that hangs
// (each attempt waiting out its timeout) or fails delays only its own deliveries, never another
// webhook's. Each pending delivery (RegressionStore) is sent signed (WebhookSender), and its new
// state stored after every attempt: delivered, retried later with backoff (NextWebhookAttempt) or
// failed for good. A worker without a target (a webhook name found in the store but no longer in
// the controller's config) fails its deliveries, naming the webhook.

#include <optional>
#include <random>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "common/time/clock.h"
#include "controller/alerts/webhook_backoff.h"
#include "controller/alerts/webhook_sender.h"
#include "controller/store/regression_store.h"

namespace kvbench::controller {

// A pending delivery is looked at again at least this often even when nothing wakes the worker
// (a clock jump, a store written by a restore).
inline constexpr absl::Duration kDeliveryPollPeriod = absl::Seconds(30);
// Deliveries read per query; the worker checks whether it should stop between any two.
inline constexpr int kDeliveriesPerPass = 16;

// The webhook-id of an alert: "kvb_" + the first 32 hex digits of SHA-256 of its alert_id (alert
// ids hold '.' from host names; the specification's ids must not).
std::string WebhookIdOf(const std::string& alert_id);

class WebhookWorker {
 public:
  // `target` null: the webhook `name` is not configured. Borrowed: the rest must outlive the
  // worker. Starts its thread.
  WebhookWorker(std::string name, std::optional<WebhookTarget> target, RegressionStore* store,
                const WebhookSender* sender, const Clock* clock, WebhookRetryPolicy policy);
  ~WebhookWorker();  // Stop()s
  WebhookWorker(const WebhookWorker&) = delete;
  WebhookWorker& operator=(const WebhookWorker&) = delete;

  // New deliveries were stored: look now.
  void Wake();
  // Asks the thread to end after the attempt in flight; Join() waits for it.
  void RequestStop();
  void Join();
  void Stop() {
    RequestStop();
    Join();
  }

 private:
  void Run();
  // Sends what is due; returns when the next pending delivery is due (nullopt: none pending).
  std::optional<absl::Time> DeliverDue();
  void Deliver(const DueDelivery& due);
  bool stopping();

  const std::string name_;
  const std::optional<WebhookTarget> target_;
  RegressionStore* const store_;
  const WebhookSender* const sender_;
  const Clock* const clock_;
  const WebhookRetryPolicy policy_;
  std::mt19937_64 random_;  // worker thread only: backoff jitter
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool woken_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace kvbench::controller
