#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "common/loop/executor.h"
#include "controller/core/agent_channel.h"
#include "controller/store/store.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::controller {

// Agents' events with group commit: queued events are stored in one transaction on a task
// posted after what the loop already holds, then acknowledged once per stream (the last seq
// covers the stream's batch: its events are in order) and handed to `apply` when new (a
// duplicate is acknowledged again, never applied twice). A failed commit ends the streams of the
// batch, and their agents replay the events later. On the loop thread; no locking.
class EventIngest {
 public:
  struct Counters {
    int64_t stored = 0;
    int64_t duplicate = 0;
    int64_t commits = 0;
  };

  // `store` and `executor` are borrowed and must outlive this.
  EventIngest(Store* store, Executor* executor, std::function<void(const v1::Event&)> apply);

  // Queues `event` from `channel` (kept alive by the service until its disconnect, which the
  // loop runs after the flush) and posts a flush unless one is posted already.
  void Queue(AgentChannel* channel, const v1::Event& event);
  // Stores, acknowledges and applies everything queued, now.
  void Flush();

  const Counters& counters() const { return counters_; }

 private:
  Store* const store_;
  Executor* const executor_;
  const std::function<void(const v1::Event&)> apply_;
  std::vector<std::pair<AgentChannel*, v1::Event>> pending_;
  bool flush_posted_ = false;
  Counters counters_;
};

}  // namespace kvbench::controller
