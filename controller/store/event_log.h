#pragma once

// The events agents (and the controller itself) send: numbered, acknowledged, stored once
// (DESIGN.md "The agent ↔ controller link"), with the per-request records some of them carry kept
// apart. The controller acknowledges an event only after AppendEvent returned OK, so an
// implementation must have made the row durable by then. Every method is safe to call from any
// thread.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::controller {

// An event with its place in the log. Positions grow strictly in insertion order across all jobs
// and are never reused, so a watcher resumes with EventsForJob(job, last_position, ...).
struct StoredEvent {
  int64_t position = 0;
  v1::Event event;
};

class EventLog {
 public:
  virtual ~EventLog() = default;

  // Stores an event once per (agent_id, scenario_id, seq): true if stored now, false if it was
  // stored before (a resend after a lost acknowledgement; acknowledge it again). INVALID_ARGUMENT
  // for an empty agent_id or job_id. An event carrying request records has its rows stored apart,
  // keyed by (job, scenario, attempt, first_index), in the same transaction; the log keeps the
  // event without them (watchers need no request rows).
  virtual absl::StatusOr<bool> AppendEvent(const v1::Event& event) = 0;
  // AppendEvent for each of `events` in one durable transaction (group commit): one flag per
  // event, true if stored now. All or nothing: on an error none is stored.
  virtual absl::StatusOr<std::vector<bool>> AppendEvents(const std::vector<v1::Event>& events) = 0;
  // The job's events with position > after_position, oldest first, at most `limit` (> 0).
  virtual absl::StatusOr<std::vector<StoredEvent>> EventsForJob(const std::string& job_id,
                                                                int64_t after_position,
                                                                int limit) = 0;
  // The highest seq stored for `agent_id` (0 if none): what a reconnecting agent resumes after.
  virtual absl::StatusOr<int64_t> MaxEventSeq(const std::string& agent_id) = 0;

  // A scenario attempt's request records in chunks, ordered by first_index, starting after
  // `after_first_index` (-1: from the start), at most `limit_chunks` (> 0).
  virtual absl::StatusOr<std::vector<v1::RequestRecords>> ListRequests(
      const std::string& job_id, const std::string& scenario_id, int32_t attempt,
      int64_t after_first_index, int limit_chunks) = 0;
  // Deletes request records stored before `before` (results and summaries stay); how many chunks.
  virtual absl::StatusOr<int64_t> PruneRequests(absl::Time before) = 0;
};

}  // namespace kvbench::controller
