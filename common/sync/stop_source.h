#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "absl/time/time.h"

namespace kvbench {

// A one-way request to stop, shared by whoever may ask and whatever must stop (C++20's
// std::stop_source, which C++17 lacks). RequestStop(), from any thread (a signal's watcher thread,
// a test), wakes every WaitFor at once and runs the registered StopCallbacks, so nothing polls a
// flag to notice it. Thread-safe.
class StopSource {
 public:
  StopSource() = default;
  StopSource(const StopSource&) = delete;
  StopSource& operator=(const StopSource&) = delete;

  // The first call marks the source stopped, wakes the waiters and runs the callbacks (on this
  // thread, in the order they were registered); later calls do nothing.
  void RequestStop();
  bool stop_requested() const { return stopped_.load(std::memory_order_acquire); }
  // Blocks until a stop is requested or `timeout` has passed (InfiniteDuration: until the stop);
  // true when it was requested.
  bool WaitFor(absl::Duration timeout) const;

 private:
  friend class StopCallback;
  using CallbackId = uint64_t;

  // Registers `callback` (0 when the stop was already requested: the caller runs it).
  CallbackId Add(std::function<void()> callback);
  // Unregisters; when RequestStop is running the callbacks on another thread, waits until it has
  // finished, so the callback never runs after this returns.
  void Remove(CallbackId id);

  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::atomic<bool> stopped_{false};
  std::map<CallbackId, std::function<void()>> callbacks_;  // guarded by mu_
  CallbackId next_id_ = 1;                                 // guarded by mu_
  bool running_callbacks_ = false;                         // guarded by mu_
  std::thread::id running_thread_;                         // guarded by mu_
};

}  // namespace kvbench
