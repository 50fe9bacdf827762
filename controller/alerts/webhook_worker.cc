#include "controller/alerts/webhook_worker.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/auth/token_verifier.h"
#include "common/log/logging.h"
#include "controller/alerts/alert_payload.h"

namespace kvbench::controller {

std::string WebhookIdOf(const std::string& alert_id) {
  return absl::StrCat("kvb_", Sha256Hex(alert_id).substr(0, 32));
}

WebhookWorker::WebhookWorker(std::string name, std::optional<WebhookTarget> target,
                             RegressionStore* store, const WebhookSender* sender,
                             const Clock* clock, WebhookRetryPolicy policy)
    : name_(std::move(name)),
      target_(std::move(target)),
      store_(store),
      sender_(sender),
      clock_(clock),
      policy_(policy),
      random_(std::random_device{}()),
      thread_([this] { Run(); }) {}

WebhookWorker::~WebhookWorker() { Stop(); }

void WebhookWorker::Wake() {
  absl::MutexLock lock(&mu_);
  woken_ = true;
}

void WebhookWorker::RequestStop() {
  absl::MutexLock lock(&mu_);
  stop_ = true;
}

void WebhookWorker::Join() {
  if (thread_.joinable()) thread_.join();
}

bool WebhookWorker::stopping() {
  absl::MutexLock lock(&mu_);
  return stop_;
}

void WebhookWorker::Run() {
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

std::optional<absl::Time> WebhookWorker::DeliverDue() {
  while (true) {
    absl::StatusOr<std::vector<DueDelivery>> due =
        store_->DueDeliveries(clock_->Now(), kDeliveriesPerPass, name_);
    if (!due.ok()) {
      KV_LOG(ERROR) << "cannot read pending alert deliveries webhook=" << name_ << ": "
                    << due.status();
      return std::nullopt;
    }
    for (const DueDelivery& delivery : *due) {
      if (stopping()) return std::nullopt;
      Deliver(delivery);
    }
    if (static_cast<int>(due->size()) < kDeliveriesPerPass) break;
  }
  absl::StatusOr<std::optional<absl::Time>> next = store_->NextDeliveryTime(name_);
  return next.ok() ? *next : std::nullopt;
}

void WebhookWorker::Deliver(const DueDelivery& due) {
  v1::AlertDelivery delivery = due.delivery;
  const std::string& alert_id = delivery.alert_id();
  if (!target_.has_value()) {
    delivery.set_state(v1::DELIVERY_FAILED);
    delivery.set_last_detail(absl::StrCat("webhook \"", delivery.webhook(),
                                          "\" is no longer in the controller's config"));
    KV_LOG(ERROR) << "alert not delivered alert=" << alert_id << " " << delivery.last_detail();
  } else {
    const DeliveryAttempt attempt =
        sender_->Send(*target_, WebhookIdOf(alert_id), AlertWebhookBody(due.alert));
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
