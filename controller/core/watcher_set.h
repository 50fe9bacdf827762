#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/store/store.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::controller {

// Most events one WatchEvents call returns.
inline constexpr int kWatchBatch = 256;

// A batch of a job's stored events for a watcher.
struct WatchBatch {
  std::vector<v1::WatchJobResponse> events;
  bool job_done = false;  // the job is terminal and `events` reach the end of its log
};

// The job's stored events after `after_position` (at most kWatchBatch), each tagged with
// `job_state`, read by the caller before the events so "done" is never claimed with one unread.
absl::StatusOr<WatchBatch> ReadWatchBatch(Store* store, const std::string& job_id,
                                          v1::JobState job_state, int64_t after_position);

// One-shot wake-ups of WatchJob streams, by job. On the JobManager's loop thread; no locking.
class WatcherSet {
 public:
  // Calls `wake` once at the job's next Notify; returns an id for Remove.
  uint64_t Add(const std::string& job_id, std::function<void()> wake);
  void Remove(uint64_t watcher_id);
  // Wakes (and forgets) the job's watchers.
  void Notify(const std::string& job_id);
  // Wakes (and forgets) every watcher (shutdown).
  void WakeAll();
  size_t size() const { return watchers_.size(); }

 private:
  std::multimap<std::string, std::pair<uint64_t, std::function<void()>>> watchers_;
  uint64_t next_id_ = 1;
};

}  // namespace kvbench::controller
