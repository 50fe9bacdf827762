#include "controller/core/watcher_set.h"

#include "common/lifecycle/lifecycle.h"

namespace kvbench::controller {

absl::StatusOr<WatchBatch> ReadWatchBatch(Store* store, const std::string& job_id,
                                          v1::JobState job_state, int64_t after_position) {
  absl::StatusOr<std::vector<StoredEvent>> events =
      store->Events().EventsForJob(job_id, after_position, kWatchBatch);
  if (!events.ok()) return events.status();
  WatchBatch batch;
  for (StoredEvent& stored : *events) {
    v1::WatchJobResponse& response = batch.events.emplace_back();
    response.set_position(stored.position);
    *response.mutable_event() = std::move(stored.event);
    response.set_job_state(job_state);
  }
  batch.job_done = IsJobEnded(job_state) && static_cast<int>(batch.events.size()) < kWatchBatch;
  return batch;
}

uint64_t WatcherSet::Add(const std::string& job_id, std::function<void()> wake) {
  const uint64_t id = next_id_++;
  watchers_.emplace(job_id, std::make_pair(id, std::move(wake)));
  return id;
}

void WatcherSet::Remove(uint64_t watcher_id) {
  for (auto it = watchers_.begin(); it != watchers_.end(); ++it) {
    if (it->second.first == watcher_id) {
      watchers_.erase(it);
      return;
    }
  }
}

void WatcherSet::Notify(const std::string& job_id) {
  auto [begin, end] = watchers_.equal_range(job_id);
  if (begin == end) return;
  std::vector<std::function<void()>> wakes;
  for (auto it = begin; it != end; ++it) wakes.push_back(std::move(it->second.second));
  watchers_.erase(begin, end);
  for (auto& wake : wakes) wake();
}

void WatcherSet::WakeAll() {
  std::vector<std::function<void()>> wakes;
  for (auto& [job_id, watcher] : watchers_) wakes.push_back(std::move(watcher.second));
  watchers_.clear();
  for (auto& wake : wakes) wake();
}

}  // namespace kvbench::controller
