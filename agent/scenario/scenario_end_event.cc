#include "agent/scenario/scenario_end_event.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kvbench::agent {

v1::Event ScenarioEndEvent(const absl::Status& outcome) {
  v1::Event end;
  v1::StateChange* state = end.mutable_state_change();
  if (outcome.ok()) {
    state->set_state(v1::SCENARIO_STATE_SUCCEEDED);
    return end;
  }
  state->set_state(outcome.code() == absl::StatusCode::kCancelled ? v1::SCENARIO_STATE_CANCELLED
                                                                  : v1::SCENARIO_STATE_FAILED);
  std::vector<std::string> lines = absl::StrSplit(outcome.message(), '\n');
  state->set_reason(lines.front());
  for (size_t i = 1; i < lines.size(); ++i) state->add_log_tail(lines[i]);
  return end;
}

absl::Status ReplayOutcome(const v1::ScenarioResult& result) {
  const v1::SessionCounts& sessions = result.sessions();
  if (result.latency().requests_completed() > 0 || sessions.failed_requests() == 0) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "no request succeeded: all ", sessions.failed_requests(),
      sessions.failed_requests() == 1 ? " request" : " requests", " failed; the first: ",
      sessions.first_error().empty() ? "(no error recorded)" : sessions.first_error()));
}

}  // namespace kvbench::agent
