// JobStateMachine's clocks: what it ends for time passing rather than for an agent's word — a
// job past its max_duration_s, an assignment never started (assignment_timeout_s), a running
// attempt whose events stopped (event_silence_timeout_s). The rest of the class is in
// job_state_machine.cc.
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/lifecycle/lifecycle.h"
#include "common/log/logging.h"
#include "controller/core/job_state_machine.h"

namespace kvbench::controller {

void JobStateMachine::FailOverdueJobs() {
  std::set<std::string> unfinished;
  for (const ScenarioRef& ref : table_.pending()) unfinished.insert(ref.first);
  for (const auto& [agent_id, ref] : table_.AllActive()) unfinished.insert(ref.first);
  const absl::Time now = clock_->Now();
  for (const std::string& job_id : unfinished) {
    JobRecord* job = table_.Find(job_id);
    if (job == nullptr || job->state != v1::JOB_STATE_RUNNING || job->spec.max_duration_s() <= 0) {
      continue;
    }
    const absl::Duration limit = absl::Seconds(job->spec.max_duration_s());
    if (now - job->start_time <= limit) continue;
    const std::string reason = absl::StrCat("the job ran past its max_duration_s (",
                                            absl::FormatDuration(limit), " from its start)");
    KV_LOG(WARNING) << "job overdue job=" << job->job_id << " reason=\"" << reason << "\"";
    for (ScenarioRecord& scenario : job->scenarios) {
      if (IsScenarioEnded(scenario.state)) continue;
      StopOnItsAgent(*job, scenario, reason);
      RecordControllerEvent(*job, scenario, v1::SCENARIO_STATE_FAILED, reason);
      if (absl::Status stored = SetScenario(*job, scenario, v1::SCENARIO_STATE_FAILED, reason);
          !stored.ok()) {
        KV_LOG(ERROR) << "cannot record an overdue scenario job=" << job->job_id
                      << " error=" << stored;
      }
    }
  }
}

std::string JobStateMachine::AssignmentKey(const JobRecord& job, const ScenarioRecord& scenario) {
  return absl::StrCat(job.job_id, "\n", scenario.scenario.scenario_id());
}

int JobStateMachine::TimeOutAssignments(absl::Duration timeout) {
  return TimeOut(v1::SCENARIO_STATE_ASSIGNED, &assigned_at_, timeout,
                 [timeout](const std::string& agent_id, int attempt, absl::Duration) {
                   return absl::StrCat("agent ", agent_id, " did not start attempt ", attempt,
                                       " within ", absl::FormatDuration(timeout),
                                       " of its assignment (assignment_timeout_s)");
                 });
}

int JobStateMachine::TimeOutSilentAttempts(absl::Duration timeout) {
  return TimeOut(v1::SCENARIO_STATE_RUNNING, &last_event_at_, timeout,
                 [timeout](const std::string& agent_id, int attempt, absl::Duration silent) {
                   return absl::StrCat("no event from agent ", agent_id, " about attempt ", attempt,
                                       " for ", absl::FormatDuration(silent), ", over ",
                                       absl::FormatDuration(timeout),
                                       " (event_silence_timeout_s), while it heartbeats: its "
                                       "events no longer arrive");
                 });
}

int JobStateMachine::TimeOut(
    v1::ScenarioState state, absl::flat_hash_map<std::string, absl::Duration>* since,
    absl::Duration timeout,
    const std::function<std::string(const std::string&, int, absl::Duration)>& reason_of) {
  const absl::Duration now = clock_->Monotonic();
  int timed_out = 0;
  for (const auto& [agent_id, ref] : table_.AllActive()) {
    JobRecord* job = table_.Find(ref.first);
    ScenarioRecord* scenario = table_.Resolve(ref);
    if (scenario == nullptr || scenario->state != state) continue;
    const auto [at, fresh] = since->try_emplace(AssignmentKey(*job, *scenario), now);
    if (fresh || now - at->second <= timeout) continue;
    const std::string reason = reason_of(agent_id, scenario->attempt, now - at->second);
    StopOnItsAgent(*job, *scenario, reason);
    Lose(*job, *scenario, reason);
    ++timed_out;
  }
  return timed_out;
}

}  // namespace kvbench::controller
