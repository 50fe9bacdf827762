#include "common/sync/stop_callback.h"

#include <utility>

namespace kvbench {

StopCallback::StopCallback(StopSource* source, std::function<void()> callback) : source_(source) {
  if (source_ == nullptr) return;
  id_ = source_->Add(callback);
  if (id_ == 0) callback();  // already stopped
}

StopCallback::~StopCallback() {
  if (source_ != nullptr && id_ != 0) source_->Remove(id_);
}

}  // namespace kvbench
