#include "controller/kvctl/print/run_progress.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/alerts/alert_text.h"
#include "controller/kvctl/print/capacity_printer.h"
#include "controller/kvctl/print/results_table.h"

namespace kvbench::kvctl {

RunProgress::RunProgress(std::ostream* out, bool terminal, bool label_attempts)
    : out_(out), terminal_(terminal), label_attempts_(label_attempts) {}

std::string RunProgress::Label(const v1::Event& event) const {
  if (!label_attempts_ || event.attempt() <= 0) return event.scenario_id();
  return absl::StrCat(event.scenario_id(), " #", event.attempt());
}

void RunProgress::Begin(const std::string& job_id, const client::JobPlan& plan,
                        const std::string& out_dir) {
  results_dir_ = absl::StrCat(out_dir, "/", job_id);
  *out_ << "job " << job_id << ": " << plan.scenarios.size() << " scenarios"
        << (plan.spec.has_concurrency_search()
                ? " to start a capacity search (its next probes are added as each round ends)"
                : "")
        << " (" << plan.spec.model() << ", engine "
        << absl::AsciiStrToLower(v1::Engine_Name(plan.spec.engine())) << ", "
        << plan.spec.replicas() << " replica(s))\n";
  out_->flush();
}

std::string RunProgress::Line(const std::string& scenario_id) const {
  const v1::Progress& progress = last_.at(scenario_id);
  std::string line = absl::StrFormat("%-14s %-22s %6.1fs", labels_.at(scenario_id),
                                     ScenarioPhaseName(progress.phase()), progress.elapsed_s());
  if (progress.phase() == v1::SCENARIO_PHASE_REPLAY) {
    absl::StrAppend(&line, "  ", progress.requests_done());
    if (progress.requests_total() > 0) absl::StrAppend(&line, " of ", progress.requests_total());
    absl::StrAppend(&line, " requests");
    if (progress.has_eta_s())
      absl::StrAppend(&line, absl::StrFormat(", ETA %.0fs", progress.eta_s()));
  }
  return line;
}

void RunProgress::OnEvent(const v1::Event& event) {
  const std::string& id = event.scenario_id();
  if (event.has_progress()) {
    const bool new_phase = last_.count(id) == 0 || last_[id].phase() != event.progress().phase();
    last_[id] = event.progress();
    labels_[id] = Label(event);
    if (terminal_) {
      *out_ << "\r\033[K" << Line(id) << std::flush;
    } else if (new_phase) {
      *out_ << Line(id) << "\n" << std::flush;
    }
  } else if (event.has_state_change()) {
    const v1::StateChange& change = event.state_change();
    if (change.state() == v1::SCENARIO_STATE_RUNNING) return;
    if (terminal_) *out_ << "\r\033[K";
    *out_ << absl::StrFormat("%-14s %s", Label(event), ScenarioStateName(change.state()));
    if (!change.reason().empty()) *out_ << ": " << change.reason();
    *out_ << "\n";
    for (const std::string& line : change.log_tail()) *out_ << "    " << line << "\n";
    out_->flush();
  } else if (event.has_log() && event.log().severity() >= v1::LogLine::WARNING) {
    if (terminal_) *out_ << "\r\033[K";
    *out_ << absl::StrFormat("%-14s %s\n", Label(event), event.log().text()) << std::flush;
  } else if (event.has_alert()) {  // the controller's judgement of a scheduled run
    if (terminal_) *out_ << "\r\033[K";
    *out_ << "REGRESSION " << controller::AlertSummary(event.alert()) << "\n" << std::flush;
  }
}

void RunProgress::End(const v1::Job& job) {
  std::vector<ResultsRow> rows;
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    rows.push_back(ResultsRowFromScenarioStatus(status));
  }
  *out_ << "\n";
  // A capacity search's answer comes first, then the per-scenario table.
  PrintCapacity(job.capacity(), *out_);
  PrintResultsTable(rows, *out_);
  *out_ << "\nresults: " << results_dir_
        << "/<scenario>/ (result.json, requests.jsonl, logs/); kvctl's log: " << results_dir_
        << "/kvctl.log\n";
  out_->flush();
}

}  // namespace kvbench::kvctl
