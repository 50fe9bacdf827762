#include "controller/kvctl/run_progress.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/kvctl/table_printer.h"

namespace kvbench::kvctl {
namespace {

// "starting_replicas" from SCENARIO_PHASE_STARTING_REPLICAS.
std::string PhaseName(v1::ScenarioPhase phase) {
  std::string name = v1::ScenarioPhase_Name(phase);
  constexpr absl::string_view kPrefix = "SCENARIO_PHASE_";
  if (absl::StartsWith(name, kPrefix)) name = name.substr(kPrefix.size());
  return absl::AsciiStrToLower(name);
}

std::string Ms(bool has, double seconds) {
  return has ? absl::StrFormat("%.1f", seconds * 1000) : "-";
}

std::string Pct(bool has, double pct) { return has ? absl::StrFormat("%+.0f%%", pct) : "-"; }

}  // namespace

RunProgress::RunProgress(std::ostream* out, bool terminal) : out_(out), terminal_(terminal) {}

void RunProgress::Begin(const std::string& job_id, const client::JobPlan& plan,
                        const std::string& out_dir) {
  results_dir_ = absl::StrCat(out_dir, "/", job_id);
  *out_ << "job " << job_id << ": " << plan.scenarios.size() << " scenarios (" << plan.spec.model()
        << ", engine " << absl::AsciiStrToLower(v1::Engine_Name(plan.spec.engine())) << ", "
        << plan.spec.replicas() << " replica(s))\n";
  out_->flush();
}

std::string RunProgress::Line(const std::string& scenario_id) const {
  const v1::Progress& progress = last_.at(scenario_id);
  std::string line = absl::StrFormat("%-14s %-22s %6.1fs", scenario_id, PhaseName(progress.phase()),
                                     progress.elapsed_s());
  if (progress.phase() == v1::SCENARIO_PHASE_REPLAY) {
    absl::StrAppend(&line, "  ", progress.requests_done(), " requests");
  }
  return line;
}

void RunProgress::OnEvent(const v1::Event& event) {
  const std::string& id = event.scenario_id();
  if (event.has_progress()) {
    const bool new_phase = last_.count(id) == 0 || last_[id].phase() != event.progress().phase();
    last_[id] = event.progress();
    if (terminal_) {
      *out_ << "\r\033[K" << Line(id) << std::flush;
    } else if (new_phase) {
      *out_ << Line(id) << "\n" << std::flush;
    }
  } else if (event.has_state_change()) {
    const v1::StateChange& change = event.state_change();
    if (change.state() == v1::SCENARIO_STATE_RUNNING) return;
    if (terminal_) *out_ << "\r\033[K";
    *out_ << absl::StrFormat(
        "%-14s %s", id,
        absl::AsciiStrToLower(
            v1::ScenarioState_Name(change.state()).substr(sizeof("SCENARIO_STATE_") - 1)));
    if (!change.reason().empty()) *out_ << ": " << change.reason();
    *out_ << "\n";
    for (const std::string& line : change.log_tail()) *out_ << "    " << line << "\n";
    out_->flush();
  } else if (event.has_log() && event.log().severity() >= v1::LogLine::WARNING) {
    if (terminal_) *out_ << "\r\033[K";
    *out_ << absl::StrFormat("%-14s %s\n", id, event.log().text()) << std::flush;
  }
}

void RunProgress::End(const std::vector<agent::LocalScenarioOutcome>& outcomes) {
  std::vector<const agent::LocalScenarioOutcome*> rows;
  for (const auto& outcome : outcomes) rows.push_back(&outcome);
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    return a->scenario.concurrency() < b->scenario.concurrency();
  });
  TablePrinter table({"CONCURRENCY", "TIER", "SESSIONS", "TTFT_P50_MS", "TTFT_P95_MS",
                      "DEGRADATION_P50", "REQ/S", "FAILED", "STATUS"});
  for (const auto* row : rows) {
    const v1::ScenarioResult& result = row->result;
    const v1::LatencyMetrics& latency = result.latency();
    const bool ok = row->status.ok();
    table.AddRow(
        {absl::StrCat(row->scenario.concurrency()), v1::Tier_Name(row->scenario.tier()),
         ok ? absl::StrCat(result.sessions().achieved(), "/", result.sessions().requested()) : "-",
         ok ? Ms(latency.has_ttft_p50_s(), latency.ttft_p50_s()) : "-",
         ok ? Ms(latency.has_ttft_p95_s(), latency.ttft_p95_s()) : "-",
         ok ? Pct(latency.has_ttft_degradation_median_pct(), latency.ttft_degradation_median_pct())
            : "-",
         ok && latency.has_requests_per_s() ? absl::StrFormat("%.2f", latency.requests_per_s())
                                            : "-",
         ok ? absl::StrCat(result.sessions().failed_requests()) : "-",
         ok ? (result.process_failures_size() > 0 ? "ok (process died)" : "ok")
            : (row->status.code() == absl::StatusCode::kCancelled ? "cancelled" : "failed")});
  }
  *out_ << "\n";
  table.Print(*out_);
  *out_ << "\nresults: " << results_dir_
        << "/<scenario>/ (result.json, requests.jsonl, logs/); kvctl's log: " << results_dir_
        << "/kvctl.log\n";
  out_->flush();
}

}  // namespace kvbench::kvctl
