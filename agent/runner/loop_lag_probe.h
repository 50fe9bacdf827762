#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/time/time.h"
#include "agent/runner/lag_timeline.h"
#include "agent/runner/replay_clock.h"
#include "common/http/async_http_client.h"

namespace kvbench::runner {

// How often the probe posts to the I/O loop, and the resolution it keeps: a quiet loop answers a
// post within tens of microseconds, so a probe every 10 ms costs the loop a few tenths of a
// millisecond per second, and two probes per bucket keep a 20 ms picture of it.
inline constexpr absl::Duration kLoopLagProbePeriod = absl::Milliseconds(10);
inline constexpr double kLoopLagBucketSeconds = 0.02;

// kv-runner's loop-lag probe, like Node's monitorEventLoopDelay: a thread of its own
// posts a task to the replay's HTTP client every `period` (AsyncHttpClient::Post, each loop in
// turn); the task's lateness (run − post) is how late that loop was answering its sockets then,
// so how late the replay's stamps of bytes read and sent may be. A client that cannot post leaves
// the timeline empty: the lag is then not measured.
class LoopLagProbe {
 public:
  // `client` and `clock` must outlive the probe; tasks still queued on the client when the probe
  // goes hold the timeline, not the probe.
  LoopLagProbe(AsyncHttpClient* client, const ReplayClock* clock,
               absl::Duration period = kLoopLagProbePeriod);
  ~LoopLagProbe();  // Stop()
  LoopLagProbe(const LoopLagProbe&) = delete;
  LoopLagProbe& operator=(const LoopLagProbe&) = delete;

  void Start();
  // Joins the thread. Idempotent.
  void Stop();

  // What the loop was like over a request's window (LagTimeline::MaxBetween).
  std::optional<double> MaxLag(double from_s, double to_s) const;

 private:
  void Run();

  AsyncHttpClient* const client_;
  const ReplayClock* const clock_;
  const absl::Duration period_;
  const std::shared_ptr<LagTimeline> timeline_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace kvbench::runner
