#pragma once

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "controller/core/job_table.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::controller {

// Whether an agent's event may enter the event log, decided at ingest (before it is stored)
// from the event and the jobs in memory. Only the agent an attempt of a scenario was assigned to
// speaks for that attempt: a second CA-signed agent (a rogue, a misconfigured node) cannot store
// request rows, log lines or state changes under another agent's scenario, take a request
// chunk's first_index before the real one, or fill the log of a job that does not exist.
// A superseded attempt's late events from the agent it was assigned to are admitted (stored with
// their attempt; the JobStateMachine applies none of them, and `kvctl watch` labels and skips
// them), so an agent that went silent and came back keeps its seqs contiguous.
class EventAdmission {
 public:
  enum class Verdict {
    kAdmitted,
    kUnknownJob,  // no such job, or no such scenario in it
    kNotOwner,    // the attempt is not (or was never) assigned to the sending agent
    // A payload only the controller writes: an alert, or a state change to a state only the
    // controller records (PENDING, ASSIGNED, LOST, none).
    kControllerOnly,
  };
  // The Stats counter name of a refusal ("refused_not_owner"); "" for kAdmitted.
  static const char* CounterName(Verdict verdict);

  // Attempt `attempt` of the scenario went to `agent_id` (called at each assignment).
  void Assigned(const std::string& job_id, const std::string& scenario_id, int32_t attempt,
                const std::string& agent_id);
  // The verdict on `event`, whose agent_id the link has checked against its stream.
  Verdict Check(const JobTable& table, const v1::Event& event) const;

 private:
  static std::string Key(const std::string& job_id, const std::string& scenario_id,
                         int32_t attempt);
  // Who each attempt since start was assigned to. The current attempt of a recovered scenario is
  // known from its record instead (an earlier one's late events after a controller restart are
  // refused: they would change nothing).
  absl::flat_hash_map<std::string, std::string> owners_;
};

}  // namespace kvbench::controller
