#pragma once

// Delivers stored regression alerts to the configured webhooks: one WebhookWorker per webhook,
// each on a thread of its own, so one slow or hung receiver never delays another's alerts. The
// state lives in the store, so a restarted controller resumes exactly where it stopped: nothing
// delivered is sent again, nothing pending is lost. The one window left is a crash between a
// receiver's 2xx and the store's write: that delivery is sent again with the same webhook-id,
// which receivers use to drop duplicates (the specification's idempotency key).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http/http_client.h"
#include "common/time/clock.h"
#include "controller/alerts/webhook_backoff.h"
#include "controller/alerts/webhook_sender.h"
#include "controller/alerts/webhook_worker.h"
#include "controller/store/regression_store.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::controller {

// The configured webhooks with their secrets read: INVALID_ARGUMENT naming the webhook (name
// missing or repeated, bad URL), NOT_FOUND naming a secret file that cannot be read.
absl::StatusOr<std::vector<WebhookTarget>> LoadWebhookTargets(
    const google::protobuf::RepeatedPtrField<v1::WebhookConfig>& webhooks);

class AlertDispatcher {
 public:
  // Borrowed: all must outlive the dispatcher. Starts a worker per target, and one per webhook
  // name with pending deliveries that is no longer configured (which fails them, named).
  AlertDispatcher(std::vector<WebhookTarget> targets, RegressionStore* store,
                  HttpClient* http_client, const Clock* clock,
                  WebhookRetryPolicy policy = WebhookRetryPolicy());
  ~AlertDispatcher();  // Stop()s
  AlertDispatcher(const AlertDispatcher&) = delete;
  AlertDispatcher& operator=(const AlertDispatcher&) = delete;

  // New alerts were stored: every worker looks now.
  void Wake();
  // Ends every worker after its attempt in flight (each bounded by its target's timeout, waited
  // out together). Idempotent.
  void Stop();

 private:
  WebhookSender sender_;
  std::map<std::string, std::unique_ptr<WebhookWorker>> workers_;
};

}  // namespace kvbench::controller
