#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/async_http_client.h"

namespace kvbench::testing {

// Records one AsyncHttpClient exchange's calls (or several, one after another) for the test
// thread, which waits for OnComplete with a timeout (never a sleep). Optional hooks run on the
// client's I/O thread, outside the lock: `on_body` after each OnBody with the body so far (its
// answer is OnBody's), `on_complete` at OnComplete before the status is recorded (it may Start
// the next exchange).
//
//   RecordingHttpObserver recorder;
//   client->Start(request, &recorder);
//   REQUIRE(recorder.Wait());
//   CHECK(recorder.events() == "HBC");
class RecordingHttpObserver final : public AsyncHttpObserver {
 public:
  using BodyHook = std::function<bool(absl::string_view body_so_far)>;
  using CompleteHook = std::function<void(const absl::Status& status)>;

  // How long Wait waits by default, so a broken client fails a test instead of hanging it.
  static constexpr absl::Duration kDefaultWaitTimeout = absl::Seconds(10);

  explicit RecordingHttpObserver(BodyHook on_body = nullptr, CompleteHook on_complete = nullptr);

  void OnHeaders(int http_status, MonotonicTime arrival) override;
  bool OnBody(absl::string_view bytes, MonotonicTime arrival) override;
  void OnComplete(absl::Status status, MonotonicTime end) override;

  // True once OnComplete came; false after `timeout`.
  bool Wait(absl::Duration timeout = kDefaultWaitTimeout);
  bool done() const {
    return Locked([this] { return completions_ > 0; });
  }
  int completions() const {
    return Locked([this] { return completions_; });
  }
  // The last OnComplete's status; UNKNOWN "not completed" before the first.
  absl::Status status() const {
    return Locked([this] { return status_; });
  }
  // 0 before OnHeaders.
  int http_status() const {
    return Locked([this] { return http_status_; });
  }
  std::string body() const {
    return Locked([this] { return body_; });
  }
  // 'H' per OnHeaders, 'B' per OnBody, 'C' per OnComplete, in call order.
  std::string events() const {
    return Locked([this] { return events_; });
  }
  // Every call's stamp (arrival or end), in call order, never decreases.
  bool StampsNonDecreasing() const;

 private:
  // `read()` under the lock.
  template <typename Read>
  auto Locked(Read read) const -> decltype(read()) {
    std::lock_guard<std::mutex> lock(mu_);
    return read();
  }

  const BodyHook on_body_;
  const CompleteHook on_complete_;
  mutable std::mutex mu_;
  std::condition_variable done_;
  std::string events_;                                         // guarded by mu_
  int http_status_ = 0;                                        // guarded by mu_
  std::string body_;                                           // guarded by mu_
  std::vector<MonotonicTime> stamps_;                          // guarded by mu_
  absl::Status status_ = absl::UnknownError("not completed");  // guarded by mu_
  int completions_ = 0;                                        // guarded by mu_
};

}  // namespace kvbench::testing
