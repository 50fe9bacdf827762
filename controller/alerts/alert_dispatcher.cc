#include "controller/alerts/alert_dispatcher.h"

#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/files/private_file.h"
#include "common/log/logging.h"

namespace kvbench::controller {

absl::StatusOr<std::vector<WebhookTarget>> LoadWebhookTargets(
    const google::protobuf::RepeatedPtrField<v1::WebhookConfig>& webhooks) {
  std::vector<WebhookTarget> targets;
  std::set<std::string> names;
  for (int i = 0; i < webhooks.size(); ++i) {
    const v1::WebhookConfig& webhook = webhooks[i];
    const std::string where = absl::StrCat("webhooks[", i, "]");
    if (webhook.name().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".name is empty"));
    }
    if (!names.insert(webhook.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".name \"", webhook.name(), "\" names another webhook too"));
    }
    absl::Status url = ValidateWebhookUrl(webhook.url());
    if (!url.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".url: ", url.message()));
    }
    if (webhook.secret_file().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ".secret_file is empty: alerts are signed, give the file with the secret"));
    }
    // Held to the rule of every secret of the controller (a TLS key, the store's DSN): its
    // owner's alone, or refused at start with the chmod that fixes it.
    absl::StatusOr<std::string> secret =
        ReadOwnerOnlyFile(webhook.secret_file(), absl::StrCat(where, ".secret_file"));
    if (!secret.ok()) return secret.status();
    absl::StatusOr<WebhookKey> key = WebhookKey::FromSecret(*secret);
    if (!key.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".secret_file ", webhook.secret_file(),
                                                     ": ", key.status().message()));
    }
    WebhookTarget& target = targets.emplace_back(
        WebhookTarget{webhook.name(), webhook.url(), *std::move(key), kDefaultWebhookTimeout});
    if (webhook.has_timeout_s()) {
      if (!(webhook.timeout_s() > 0 && webhook.timeout_s() <= 300)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ".timeout_s is ", webhook.timeout_s(), "; it must be in (0, 300]"));
      }
      target.timeout = absl::Seconds(webhook.timeout_s());
    }
  }
  return targets;
}

AlertDispatcher::AlertDispatcher(std::vector<WebhookTarget> targets, RegressionStore* store,
                                 HttpClient* http_client, const Clock* clock,
                                 WebhookRetryPolicy policy)
    : sender_(http_client, clock) {
  for (WebhookTarget& target : targets) {
    std::string name = target.name;
    workers_.emplace(name, std::make_unique<WebhookWorker>(name, std::move(target), store, &sender_,
                                                           clock, policy));
  }
  // Deliveries stored for a webhook since removed from the config: a worker fails them, named.
  absl::StatusOr<std::vector<std::string>> pending = store->PendingWebhooks();
  if (!pending.ok()) {
    KV_LOG(ERROR) << "cannot read the webhooks of pending alert deliveries: " << pending.status();
    return;
  }
  for (const std::string& name : *pending) {
    if (workers_.count(name) > 0) continue;
    workers_.emplace(
        name, std::make_unique<WebhookWorker>(name, std::nullopt, store, &sender_, clock, policy));
  }
}

AlertDispatcher::~AlertDispatcher() { Stop(); }

void AlertDispatcher::Wake() {
  for (auto& [name, worker] : workers_) worker->Wake();
}

void AlertDispatcher::Stop() {
  for (auto& [name, worker] : workers_) worker->RequestStop();
  for (auto& [name, worker] : workers_) worker->Join();
}

}  // namespace kvbench::controller
