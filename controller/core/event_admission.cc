#include "controller/core/event_admission.h"

#include "absl/strings/str_cat.h"

namespace kvbench::controller {

namespace {

// States an agent reports of its attempt; the others (PENDING, ASSIGNED, LOST) are the
// controller's to record.
bool AgentMayReport(v1::ScenarioState state) {
  return state == v1::SCENARIO_STATE_RUNNING || state == v1::SCENARIO_STATE_SUCCEEDED ||
         state == v1::SCENARIO_STATE_FAILED || state == v1::SCENARIO_STATE_CANCELLED;
}

}  // namespace

const char* EventAdmission::CounterName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kAdmitted:
      return "";
    case Verdict::kUnknownJob:
      return "refused_unknown_job";
    case Verdict::kNotOwner:
      return "refused_not_owner";
    case Verdict::kControllerOnly:
      return "refused_controller_only";
  }
  return "";
}

std::string EventAdmission::Key(const std::string& job_id, const std::string& scenario_id,
                                int32_t attempt) {
  return absl::StrCat(job_id, "\n", scenario_id, "\n", attempt);
}

void EventAdmission::Assigned(const std::string& job_id, const std::string& scenario_id,
                              int32_t attempt, const std::string& agent_id) {
  owners_[Key(job_id, scenario_id, attempt)] = agent_id;
}

EventAdmission::Verdict EventAdmission::Check(const JobTable& table, const v1::Event& event) const {
  if (event.has_alert() ||
      (event.has_state_change() && !AgentMayReport(event.state_change().state()))) {
    return Verdict::kControllerOnly;
  }
  const JobRecord* job = table.Find(event.job_id());
  if (job == nullptr) return Verdict::kUnknownJob;
  const ScenarioRecord* scenario = JobTable::FindScenario(*job, event.scenario_id());
  if (scenario == nullptr) return Verdict::kUnknownJob;
  if (event.attempt() < 1 || event.attempt() > scenario->attempt) return Verdict::kNotOwner;
  auto owner = owners_.find(Key(event.job_id(), event.scenario_id(), event.attempt()));
  if (owner != owners_.end()) {
    return owner->second == event.agent_id() ? Verdict::kAdmitted : Verdict::kNotOwner;
  }
  // Recovered from the store: only the current attempt's agent is known.
  const bool current_owner =
      event.attempt() == scenario->attempt && scenario->agent_id == event.agent_id();
  return current_owner ? Verdict::kAdmitted : Verdict::kNotOwner;
}

}  // namespace kvbench::controller
