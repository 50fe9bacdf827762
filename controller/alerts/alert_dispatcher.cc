#include "controller/alerts/alert_dispatcher.h"

#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/auth/token_verifier.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"
#include "controller/alerts/alert_payload.h"

namespace kvbench::controller {
namespace {

std::map<std::string, WebhookTarget> ByName(std::vector<WebhookTarget> targets) {
  std::map<std::string, WebhookTarget> by_name;
  for (WebhookTarget& target : targets) {
    std::string name = target.name;
    by_name.emplace(std::move(name), std::move(target));
  }
  return by_name;
}

}  // namespace

std::string WebhookIdOf(const std::string& alert_id) {
  return absl::StrCat("kvb_", Sha256Hex(alert_id).substr(0, 32));
}

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
    std::ifstream file(webhook.secret_file(), std::ios::binary);
    if (!file) {
      return absl::NotFoundError(
          absl::StrCat(where, ".secret_file ", webhook.secret_file(), " cannot be read"));
    }
    std::stringstream secret;
    secret << file.rdbuf();
    absl::StatusOr<WebhookKey> key =
        WebhookKey::FromSecret(absl::StripTrailingAsciiWhitespace(secret.str()));
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
    : targets_(ByName(std::move(targets))),
      store_(store),
      clock_(clock),
      policy_(policy),
      sender_(http_client, clock),
      random_(std::random_device{}()),
      thread_([this] { Run(); }) {}

AlertDispatcher::~AlertDispatcher() { Stop(); }

void AlertDispatcher::Wake() {
  absl::MutexLock lock(&mu_);
  woken_ = true;
}

void AlertDispatcher::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void AlertDispatcher::Run() {
  while (true) {
    const std::optional<absl::Time> next = DeliverDue();
    absl::Duration wait = kDeliveryPollPeriod;
    if (next) wait = std::min(wait, std::max(absl::ZeroDuration(), *next - clock_->Now()));
    absl::MutexLock lock(&mu_);
    auto wake = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_ || woken_; };
    mu_.AwaitWithTimeout(absl::Condition(&wake), wait);
    if (stop_) return;
    woken_ = false;
  }
}

std::optional<absl::Time> AlertDispatcher::DeliverDue() {
  while (true) {
    absl::StatusOr<std::vector<DueDelivery>> due =
        store_->DueDeliveries(clock_->Now(), kDeliveriesPerPass);
    if (!due.ok()) {
      KV_LOG(ERROR) << "cannot read pending alert deliveries: " << due.status();
      return std::nullopt;
    }
    for (const DueDelivery& delivery : *due) {
      {
        absl::MutexLock lock(&mu_);
        if (stop_) return std::nullopt;
      }
      Deliver(delivery);
    }
    if (static_cast<int>(due->size()) < kDeliveriesPerPass) break;
  }
  absl::StatusOr<std::optional<absl::Time>> next = store_->NextDeliveryTime();
  return next.ok() ? *next : std::nullopt;
}

void AlertDispatcher::Deliver(const DueDelivery& due) {
  v1::AlertDelivery delivery = due.delivery;
  const std::string& alert_id = delivery.alert_id();
  const auto target = targets_.find(delivery.webhook());
  if (target == targets_.end()) {
    delivery.set_state(v1::DELIVERY_FAILED);
    delivery.set_last_detail(absl::StrCat("webhook \"", delivery.webhook(),
                                          "\" is no longer in the controller's config"));
    KV_LOG(ERROR) << "alert not delivered alert=" << alert_id << " " << delivery.last_detail();
  } else {
    const DeliveryAttempt attempt =
        sender_.Send(target->second, WebhookIdOf(alert_id), AlertWebhookBody(due.alert));
    const absl::Time now = clock_->Now();
    if (delivery.attempts() == 0) delivery.set_first_attempt_unix_ms(absl::ToUnixMillis(now));
    delivery.set_attempts(delivery.attempts() + 1);
    delivery.set_last_detail(attempt.detail);
    if (attempt.outcome == DeliveryOutcome::kDelivered) {
      delivery.set_state(v1::DELIVERY_DELIVERED);
      delivery.set_delivered_unix_ms(absl::ToUnixMillis(now));
      KV_LOG(INFO) << "alert delivered webhook=" << delivery.webhook() << " alert=" << alert_id
                   << " attempts=" << delivery.attempts();
    } else if (attempt.outcome == DeliveryOutcome::kPermanentFailure) {
      delivery.set_state(v1::DELIVERY_FAILED);
      KV_LOG(ERROR) << "alert not delivered webhook=" << delivery.webhook() << " alert=" << alert_id
                    << ": " << attempt.detail;
    } else {
      const WebhookRetryDecision decision = NextWebhookAttempt(
          policy_, delivery.attempts(), absl::FromUnixMillis(delivery.first_attempt_unix_ms()), now,
          random_(), attempt.retry_after);
      if (decision.give_up) {
        delivery.set_state(v1::DELIVERY_FAILED);
        delivery.set_last_detail(absl::StrCat(attempt.detail, "; ", decision.reason));
        KV_LOG(ERROR) << "alert not delivered webhook=" << delivery.webhook()
                      << " alert=" << alert_id << ": " << delivery.last_detail();
      } else {
        delivery.set_next_attempt_unix_ms(absl::ToUnixMillis(decision.next_attempt_at));
        KV_LOG(WARNING) << "alert delivery failed, retrying webhook=" << delivery.webhook()
                        << " alert=" << alert_id << " attempt=" << delivery.attempts()
                        << " in=" << absl::FormatDuration(decision.next_attempt_at - now) << ": "
                        << attempt.detail;
      }
    }
  }
  absl::Status stored = store_->UpdateDelivery(delivery);
  if (!stored.ok()) KV_LOG(ERROR) << "cannot store an alert delivery's state: " << stored;
}

}  // namespace kvbench::controller
