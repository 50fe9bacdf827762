// kvctl cancel JOB [--reason R]: cancels a job; its running scenarios are stopped and torn down,
// the queued ones never start.

#include <memory>

#include "common/json/proto_json.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/kvctl/print/results_table.h"

namespace kvbench::kvctl {
namespace {

struct CancelFlags {
  std::string job_id;
  std::string reason;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

absl::Status Cancel(const CancelFlags& flags, KvctlContext* context) {
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      ConnectController(flags.connection, *context);
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::Job> job = (*client)->CancelJob(flags.job_id, flags.reason);
  if (!job.ok()) return job.status();
  if (flags.format == OutputFormat::kJson) {
    *context->out << ProtoToJson(*job, /*pretty=*/true) << "\n";
  } else {
    *context->out << "job " << job->job_id() << ": " << JobStateName(job->state()) << "\n";
  }
  return absl::OkStatus();
}

}  // namespace

void AddCancelCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand("cancel", "Cancel a job");
  auto flags = std::make_shared<CancelFlags>();
  command->add_option("job", flags->job_id, "Job id")->required();
  command->add_option("--reason", flags->reason, "Why, recorded with the job");
  AddOutputOption(command, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  AddConnectionFlags(command, &flags->connection);
  command->callback(
      [context, flags] { context->action = [context, flags] { return Cancel(*flags, context); }; });
}

}  // namespace kvbench::kvctl
