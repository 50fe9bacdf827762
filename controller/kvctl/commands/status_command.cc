// kvctl status JOB: the job's state, times and error, and where each scenario is: its agent,
// attempt, phase and progress, and why it failed; for a scheduled job, its regressions against
// the schedule's baseline.

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/json/proto_json.h"
#include "common/lifecycle/lifecycle.h"
#include "controller/alerts/alert_text.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/kvctl/print/results_table.h"
#include "controller/kvctl/print/table_printer.h"
#include "controller/regression/job_diff.h"

namespace kvbench::kvctl {
namespace {

struct StatusFlags {
  std::string job_id;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

std::string UtcTimeText(int64_t ms) {
  if (ms <= 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::FromUnixMillis(ms), absl::UTCTimeZone());
}

// "12/32 sessions, 37/160 req, 21s, ETA 70s" while it runs; the final counts once it ended.
std::string ProgressText(const v1::ScenarioStatus& status) {
  if (!status.has_progress()) return "-";
  const v1::Progress& progress = status.progress();
  std::string text =
      absl::StrCat(progress.sessions_done(), "/", progress.sessions_total(), " sessions");
  if (progress.requests_done() > 0 || progress.requests_total() > 0) {
    absl::StrAppend(&text, ", ", progress.requests_done());
    if (progress.requests_total() > 0) absl::StrAppend(&text, "/", progress.requests_total());
    absl::StrAppend(&text, " req");
  }
  absl::StrAppend(&text, absl::StrFormat(", %.0fs", progress.elapsed_s()));
  if (progress.has_eta_s() && !IsScenarioEnded(status.state())) {
    absl::StrAppend(&text, absl::StrFormat(", ETA %.0fs", progress.eta_s()));
  }
  return text;
}

// The phase, or "done" once the scenario ended (its last phase was teardown).
std::string PhaseText(const v1::ScenarioStatus& status) {
  if (IsScenarioEnded(status.state())) return "done";
  if (!status.has_progress() || status.progress().phase() == v1::SCENARIO_PHASE_UNSPECIFIED) {
    return "-";
  }
  return ScenarioPhaseName(status.progress().phase());
}

// "3 of 6 scenarios ended (2 succeeded, 1 failed)".
std::string ScenariosLine(const v1::Job& job) {
  int ended = 0, succeeded = 0, failed = 0, cancelled = 0;
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    if (!IsScenarioEnded(status.state())) continue;
    ++ended;
    succeeded += status.state() == v1::SCENARIO_STATE_SUCCEEDED;
    failed += status.state() == v1::SCENARIO_STATE_FAILED;
    cancelled += status.state() == v1::SCENARIO_STATE_CANCELLED;
  }
  std::vector<std::string> kinds;
  if (succeeded > 0) kinds.push_back(absl::StrCat(succeeded, " succeeded"));
  if (failed > 0) kinds.push_back(absl::StrCat(failed, " failed"));
  if (cancelled > 0) kinds.push_back(absl::StrCat(cancelled, " cancelled"));
  return absl::StrCat(ended, " of ", job.scenarios_size(), " scenarios ended",
                      kinds.empty() ? "" : absl::StrCat(" (", absl::StrJoin(kinds, ", "), ")"));
}

std::vector<std::string> Headers() {
  return {"SCENARIO", "TIER",  "CONCURRENCY", "STATE", "AGENT",
          "ATTEMPT",  "PHASE", "PROGRESS",    "ERROR"};
}

std::vector<std::vector<std::string>> Rows(const v1::Job& job) {
  std::vector<std::vector<std::string>> rows;
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    rows.push_back(
        {status.scenario().scenario_id(), v1::Tier_Name(status.scenario().tier()),
         absl::StrCat(status.scenario().concurrency()), ScenarioStateName(status.state()),
         status.agent_id().empty() ? "-" : status.agent_id(), absl::StrCat(status.attempt()),
         PhaseText(status), ProgressText(status), status.error()});
  }
  return rows;
}

// A scheduled job's analysis: what it was judged against and what regressed.
void PrintAnalysis(const v1::Job& job, std::ostream& out) {
  if (!job.has_analysis()) return;
  const v1::RunAnalysis& analysis = job.analysis();
  out << "\nschedule " << analysis.schedule() << ": ";
  if (analysis.baseline_kind() == "none") {
    out << analysis.note() << "\n";
  } else {
    out << "judged against " << absl::StrJoin(analysis.baseline_jobs(), " + ") << " ("
        << analysis.baseline_kind() << ")\n";
  }
  if (analysis.alerts().empty()) out << "  no regression\n";
  for (const v1::RegressionAlert& alert : analysis.alerts()) {
    out << "  REGRESSION " << controller::AlertSummary(alert) << "\n";
  }
  for (const v1::ChangePoint& point : analysis.new_change_points()) {
    out << "  change point: " << point.metric() << " of "
        << regression::ScenarioKeyText(point.tier(), point.concurrency(), point.agent())
        << absl::StrFormat(" %+.1f%% from job ", point.magnitude_pct()) << point.job_id()
        << absl::StrFormat(" (p = %.3f)", point.p_value()) << "\n";
  }
}

void PrintTable(const v1::Job& job, std::ostream& out) {
  out << "job " << job.job_id() << " (" << job.spec().name() << "): " << JobStateName(job.state())
      << "\n"
      << "  submitted " << UtcTimeText(job.submit_unix_ms()) << ", started "
      << UtcTimeText(job.start_unix_ms()) << ", ended " << UtcTimeText(job.end_unix_ms()) << "\n";
  out << "  " << ScenariosLine(job) << "\n";
  if (!job.error().empty()) out << "  error: " << job.error() << "\n";
  // A capacity search's answer so far (the probes' table is kvctl results').
  if (job.capacity().tiers_size() > 0) out << "  " << job.capacity().headline() << "\n";
  out << "\n";
  TablePrinter table(Headers());
  for (auto& row : Rows(job)) table.AddRow(std::move(row));
  table.Print(out);
  PrintAnalysis(job, out);
}

absl::Status ShowStatus(const StatusFlags& flags, KvctlContext* context) {
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      ConnectController(flags.connection, *context);
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::Job> job = (*client)->GetJob(flags.job_id);
  if (!job.ok()) return job.status();
  switch (flags.format) {
    case OutputFormat::kJson:
      *context->out << ProtoToJson(*job, /*pretty=*/true) << "\n";
      break;
    case OutputFormat::kCsv:
      PrintCsv(Headers(), Rows(*job), *context->out);
      break;
    case OutputFormat::kTable:
    case OutputFormat::kJsonl:  // not offered by this command
    case OutputFormat::kOtavaCsv:
      PrintTable(*job, *context->out);
      break;
  }
  return absl::OkStatus();
}

}  // namespace

void AddStatusCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command =
      app->add_subcommand("status", "Show a job's state and where each of its scenarios is");
  auto flags = std::make_shared<StatusFlags>();
  command->add_option("job", flags->job_id, "Job id")->required();
  AddOutputOption(command, &flags->format,
                  {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv});
  AddConnectionFlags(command, &flags->connection);
  command->callback([context, flags] {
    context->action = [context, flags] { return ShowStatus(*flags, context); };
  });
}

}  // namespace kvbench::kvctl
