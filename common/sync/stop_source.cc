#include "common/sync/stop_source.h"

#include <utility>

namespace kvbench {

void StopSource::RequestStop() {
  std::map<CallbackId, std::function<void()>> callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_.load(std::memory_order_relaxed)) return;
    stopped_.store(true, std::memory_order_release);
    callbacks.swap(callbacks_);
    running_callbacks_ = true;
    running_thread_ = std::this_thread::get_id();
  }
  changed_.notify_all();
  for (auto& [id, callback] : callbacks) callback();
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_callbacks_ = false;
  }
  changed_.notify_all();
}

bool StopSource::WaitFor(absl::Duration timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  auto stopped = [this] { return stopped_.load(std::memory_order_relaxed); };
  if (timeout == absl::InfiniteDuration()) {
    changed_.wait(lock, stopped);
    return true;
  }
  return changed_.wait_for(lock, absl::ToChronoNanoseconds(timeout), stopped);
}

StopSource::CallbackId StopSource::Add(std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_.load(std::memory_order_relaxed)) return 0;
  const CallbackId id = next_id_++;
  callbacks_.emplace(id, std::move(callback));
  return id;
}

void StopSource::Remove(CallbackId id) {
  std::unique_lock<std::mutex> lock(mu_);
  callbacks_.erase(id);
  // A callback that is running now was taken before the erase: wait for it, unless it is this
  // thread that runs the callbacks (a callback removing another one).
  changed_.wait(lock, [this] {
    return !running_callbacks_ || running_thread_ == std::this_thread::get_id();
  });
}

}  // namespace kvbench
