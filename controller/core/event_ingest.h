#pragma once

#include <cstdint>
#include <deque>
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
//
// One commit takes at most kMaxEventsPerCommit events and kMaxRowsPerCommit request rows (one
// event always); the rest waits for a task posted after the loop's other work, so a burst (a
// thousand agents' request chunks at once: seconds of store time) never holds the loop, and its
// lease renewal, that long.
class EventIngest {
 public:
  static constexpr size_t kMaxEventsPerCommit = 2000;
  static constexpr int64_t kMaxRowsPerCommit = 100000;

  struct Counters {
    int64_t stored = 0;
    int64_t duplicate = 0;
    int64_t commits = 0;
  };

  // `store` and `executor` are borrowed and must outlive this.
  EventIngest(Store* store, Executor* executor, std::function<void(const v1::Event&)> apply);

  // Queues `event` from `channel` (kept alive by the service until its disconnect, which the
  // loop runs after the flush) and posts a commit unless one is posted already.
  void Queue(AgentChannel* channel, const v1::Event& event);
  // Queues the acknowledgement of an event refused at ingest (EventAdmission): it is neither
  // stored nor applied, but consumed: acknowledged in its turn with the stream's other events
  // (never before an earlier one is durable), so the agent drops it from its spool instead of
  // replaying it on every stream for ever. Its seq is not stored, so the agent's next stream
  // starts past the controller's acked_seq (AgentReconciler::AcceptEvent allows that gap).
  void QueueRefused(AgentChannel* channel, int64_t seq);
  // Stores, acknowledges and applies everything queued, now (in as many commits as it takes).
  void Flush();
  // The stream of `channel` ended: its queued events are dropped (unacknowledged, so its agent
  // replays them on its next stream), and nothing here points at the channel any more. A commit
  // left for later may otherwise outlive the channel.
  void Forget(AgentChannel* channel);

  const Counters& counters() const { return counters_; }

 private:
  // Posts a commit of what is queued, unless one is posted or nothing is queued.
  void PostCommit();
  // Stores, acknowledges and applies the oldest queued events, up to the limits.
  void CommitBatch();

  Store* const store_;
  Executor* const executor_;
  const std::function<void(const v1::Event&)> apply_;
  struct Pending {
    AgentChannel* channel;
    v1::Event event;  // a refused one holds only its seq
    bool refused;
  };
  std::deque<Pending> pending_;
  bool commit_posted_ = false;
  Counters counters_;
};

}  // namespace kvbench::controller
