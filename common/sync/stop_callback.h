#pragma once

#include <functional>

#include "common/sync/stop_source.h"

namespace kvbench {

// Runs `callback` once when `source` (null: never) is asked to stop, for as long as this object
// lives: at once, in the constructor, when the stop was already requested (C++20's
// std::stop_callback). The destructor unregisters it and waits for a run in progress on another
// thread, so what the callback touches may be destroyed right after. A callback must not destroy
// its own StopCallback.
class StopCallback {
 public:
  StopCallback(StopSource* source, std::function<void()> callback);
  ~StopCallback();
  StopCallback(const StopCallback&) = delete;
  StopCallback& operator=(const StopCallback&) = delete;

 private:
  StopSource* const source_;
  StopSource::CallbackId id_ = 0;
};

}  // namespace kvbench
