#include "tests/support/recording_http_observer.h"

#include <algorithm>
#include <utility>

namespace kvbench::testing {

RecordingHttpObserver::RecordingHttpObserver(BodyHook on_body, CompleteHook on_complete)
    : on_body_(std::move(on_body)), on_complete_(std::move(on_complete)) {}

void RecordingHttpObserver::OnHeaders(int http_status, MonotonicTime arrival) {
  std::lock_guard<std::mutex> lock(mu_);
  events_ += 'H';
  http_status_ = http_status;
  stamps_.push_back(arrival);
}

bool RecordingHttpObserver::OnBody(absl::string_view bytes, MonotonicTime arrival) {
  std::string body_so_far;
  {
    std::lock_guard<std::mutex> lock(mu_);
    events_ += 'B';
    body_.append(bytes.data(), bytes.size());
    stamps_.push_back(arrival);
    body_so_far = body_;
  }
  return on_body_ ? on_body_(body_so_far) : true;
}

void RecordingHttpObserver::OnComplete(absl::Status status, MonotonicTime end) {
  if (on_complete_) on_complete_(status);
  // Notified under the lock: once Wait() returns, this thread no longer touches the recorder.
  std::lock_guard<std::mutex> lock(mu_);
  events_ += 'C';
  status_ = std::move(status);
  stamps_.push_back(end);
  ++completions_;
  done_.notify_all();
}

bool RecordingHttpObserver::Wait(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return done_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                        [this] { return completions_ > 0; });
}

bool RecordingHttpObserver::StampsNonDecreasing() const {
  return Locked([this] { return std::is_sorted(stamps_.begin(), stamps_.end()); });
}

}  // namespace kvbench::testing
