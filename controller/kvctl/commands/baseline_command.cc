// kvctl baseline set|show|clear SCHEDULE [JOB]: the job a schedule's runs are judged
// against. Without one pinned, each run is diffed against the runs since the schedule's last
// change point (at most regression.baseline_runs of them).
//
//   kvctl baseline set nightly nightly-20261201T020000-ab12
//   kvctl baseline show nightly
//   kvctl baseline clear nightly

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "common/json/proto_json.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"

namespace kvbench::kvctl {
namespace {

enum class Action { kSet, kShow, kClear };

struct BaselineFlags {
  std::string schedule;
  std::string job;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

void Print(const v1::Baseline& baseline, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::kJson) {
    out << ProtoToJson(baseline, /*pretty=*/true) << "\n";
    return;
  }
  if (baseline.job_id().empty()) {
    out << "schedule " << baseline.schedule()
        << ": no pinned baseline (runs are judged against those since the last change point)\n";
    return;
  }
  out << "schedule " << baseline.schedule() << ": baseline " << baseline.job_id() << " (pinned "
      << absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::FromUnixMillis(baseline.set_unix_ms()),
                          absl::UTCTimeZone())
      << ")\n";
}

absl::Status Run(Action action, const BaselineFlags& flags, KvctlContext* context) {
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> controller =
      ConnectController(flags.connection, *context);
  if (!controller.ok()) return controller.status();
  absl::StatusOr<v1::Baseline> baseline;
  if (action == Action::kShow) {
    baseline = (*controller)->GetBaseline(flags.schedule);
  } else {
    v1::SetBaselineRequest request;
    request.set_schedule(flags.schedule);
    if (action == Action::kSet) request.set_job_id(flags.job);
    baseline = (*controller)->SetBaseline(request);
  }
  if (!baseline.ok()) return baseline.status();
  Print(*baseline, flags.format, *context->out);
  return absl::OkStatus();
}

void AddAction(CLI::App* parent, KvctlContext* context, Action action, const char* name,
               const char* help) {
  CLI::App* command = parent->add_subcommand(name, help);
  auto flags = std::make_shared<BaselineFlags>();
  command->add_option("schedule", flags->schedule, "Schedule name")->required();
  if (action == Action::kSet) {
    command->add_option("job", flags->job, "Job id (one of its scenarios must have succeeded)")
        ->required();
  }
  AddOutputOption(command, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  AddConnectionFlags(command, &flags->connection);
  command->callback([context, flags, action] {
    context->action = [context, flags, action] { return Run(action, *flags, context); };
  });
}

}  // namespace

void AddBaselineCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* baseline =
      app->add_subcommand("baseline", "The job a schedule's runs are judged against");
  baseline->require_subcommand(1);
  AddAction(baseline, context, Action::kSet, "set", "Pin JOB as SCHEDULE's baseline");
  AddAction(baseline, context, Action::kShow, "show", "The pinned baseline, if any");
  AddAction(baseline, context, Action::kClear, "clear",
            "Unpin: back to the runs since the last change point");
}

}  // namespace kvbench::kvctl
