#include "controller/kvctl/print/watch_progress.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "controller/kvctl/print/comparison_printer.h"
#include "controller/kvctl/print/results_table.h"

namespace kvbench::kvctl {

WatchProgress::WatchProgress(std::ostream* out, std::ostream* err, bool terminal)
    : out_(out), err_(err), terminal_(terminal), events_(out, terminal, /*label_attempts=*/true) {}

void WatchProgress::Begin(const v1::Job& job) {
  const v1::JobSpec& spec = job.spec();
  *out_ << "job " << job.job_id() << ": " << job.scenarios_size() << " scenarios (" << spec.model()
        << ", engine " << absl::AsciiStrToLower(v1::Engine_Name(spec.engine())) << ", "
        << spec.replicas() << " replica(s)), " << JobStateName(job.state()) << "\n";
  out_->flush();
}

void WatchProgress::OnResponse(const v1::WatchJobResponse& response) {
  if (response.position() <= last_position_) return;
  last_position_ = response.position();
  if (response.job_state() != v1::JOB_STATE_UNSPECIFIED) job_state_ = response.job_state();
  if (response.has_event() && Applied(response.event())) events_.OnEvent(response.event());
}

bool WatchProgress::Applied(const v1::Event& event) {
  // The controller's own events are what it did; the agent id it stores them under is
  // controller::kControllerEventSource.
  const bool controller = event.agent_id() == "controller";
  if (event.has_alert()) return controller;
  int& attempt = attempt_[event.scenario_id()];
  if (controller && event.has_state_change() &&
      event.state_change().state() == v1::SCENARIO_STATE_ASSIGNED) {
    attempt = std::max(attempt, event.attempt());
  }
  if (event.attempt() < attempt) return false;  // superseded: moved nothing
  attempt = std::max(attempt, event.attempt());
  if (!event.has_state_change()) return true;
  int& ended = ended_[event.scenario_id()];
  if (ended > 0 && event.attempt() <= ended) return false;  // it had ended already
  const v1::ScenarioState state = event.state_change().state();
  if (state == v1::SCENARIO_STATE_SUCCEEDED || state == v1::SCENARIO_STATE_FAILED ||
      state == v1::SCENARIO_STATE_CANCELLED) {
    ended = event.attempt() > 0 ? event.attempt() : 1;
  }
  return true;
}

void WatchProgress::Resuming(const absl::Status& status, absl::Duration backoff) {
  if (terminal_) *out_ << "\r\033[K" << std::flush;
  *err_ << "kvctl: watch stream broke (" << status << "); resuming after event " << last_position_
        << " in " << absl::FormatDuration(backoff) << "\n";
  err_->flush();
}

void WatchProgress::End(const v1::Job& job) {
  if (terminal_) *out_ << "\r\033[K";
  *out_ << "job " << job.job_id() << " " << JobStateName(job.state());
  if (!job.error().empty()) *out_ << ": " << job.error();
  *out_ << "\n\n";
  std::vector<ResultsRow> rows;
  for (const v1::ScenarioStatus& scenario : job.scenarios()) {
    rows.push_back(ResultsRowFromScenarioStatus(scenario));
  }
  PrintResultsTable(rows, *out_);
  // The controller's verdicts on each comparison, as kvctl results shows them.
  if (job.validity_size() > 0) *out_ << "\n";
  for (const v1::Validity& validity : job.validity()) PrintVerdict(validity, *out_);
  out_->flush();
}

}  // namespace kvbench::kvctl
