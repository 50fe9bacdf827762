#include "agent/preflight/preflight_monitor.h"

#include <algorithm>

#include "agent/preflight/preflight_check.h"
#include "common/log/logging.h"

namespace kvbench::agent::preflight {

PreflightMonitor::PreflightMonitor(const Preflight* preflight,
                                   std::vector<v1::PreflightCheck> at_start)
    : preflight_(preflight), latest_(std::move(at_start)) {}

PreflightMonitor::~PreflightMonitor() { Stop(); }

void PreflightMonitor::RequestRecheck(std::function<bool()> still_idle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_ || running_ || pending_) return;
  pending_ = std::move(still_idle);
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
  wake_.notify_one();
}

void PreflightMonitor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

void PreflightMonitor::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopped_ || pending_ != nullptr; });
    if (stopped_) return;
    std::function<bool()> still_idle = std::move(pending_);
    pending_ = nullptr;
    running_ = true;
    lock.unlock();
    std::vector<v1::PreflightCheck> fresh = preflight_->RunCheap();
    const bool keep = still_idle();
    lock.lock();
    running_ = false;
    if (keep) {
      MergeLocked(fresh);
      ++rechecks_;
    }
  }
}

void PreflightMonitor::MergeLocked(const std::vector<v1::PreflightCheck>& fresh) {
  for (const v1::PreflightCheck& check : fresh) {
    auto it = std::find_if(latest_.begin(), latest_.end(), [&check](const v1::PreflightCheck& old) {
      return old.name() == check.name();
    });
    if (it == latest_.end()) {
      latest_.push_back(check);
      continue;
    }
    if (it->status() != check.status()) {
      KV_LOG(WARNING) << "preflight check changed check=" << check.name()
                      << " from=" << StatusWord(it->status())
                      << " to=" << StatusWord(check.status()) << " detail=" << check.detail();
    }
    *it = check;
  }
}

std::vector<v1::PreflightCheck> PreflightMonitor::Latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_;
}

std::vector<v1::PreflightCheck> PreflightMonitor::NotPassing() const {
  std::lock_guard<std::mutex> lock(mu_);
  return preflight::NotPassing(latest_);
}

int PreflightMonitor::rechecks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rechecks_;
}

}  // namespace kvbench::agent::preflight
