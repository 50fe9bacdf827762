// kvctl compare JOB|DIR [--output table|json]: per concurrency, the tiers side by side with the
// GPU tier as the baseline and each offload tier's delta against it with its 95% interval, under
// the group's validity verdict (a comparison that is not valid says so above its table).

#include <memory>

#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/job_argument.h"
#include "controller/kvctl/job_comparison.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/capacity_printer.h"
#include "controller/kvctl/print/comparison_printer.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/results/comparison.h"

namespace kvbench::kvctl {
namespace {

struct CompareFlags {
  std::string job;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

absl::Status Compare(const CompareFlags& flags, KvctlContext* context) {
  absl::StatusOr<v1::Job> job = FetchJob(flags.job, flags.connection, *context);
  if (!job.ok()) return job.status();
  const std::vector<results::ComparisonGroup> groups =
      JobComparison(*job, flags.job, flags.connection, *context);
  if (flags.format == OutputFormat::kJson) {
    nlohmann::ordered_json json = ComparisonJson(groups);
    if (HasCapacity(job->capacity())) {
      // A search's job: {"capacity": ..., "comparisons": [...]}, the headline first.
      nlohmann::ordered_json both;
      both["capacity"] = CapacityJson(job->capacity());
      both["comparisons"] = std::move(json);
      json = std::move(both);
    }
    *context->out << json.dump(2) << "\n";
    return absl::OkStatus();
  }
  *context->out << "job " << job->job_id() << " (" << job->spec().name() << ", "
                << job->spec().model() << ")\n";
  PrintCapacity(job->capacity(), *context->out);
  PrintComparison(groups, *context->out);
  return absl::OkStatus();
}

}  // namespace

void AddCompareCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "compare", "Tiers side by side per concurrency, GPU as the baseline, with the verdict");
  auto flags = std::make_shared<CompareFlags>();
  command->add_option("job", flags->job, "Job id at the controller, or a kvctl run --out folder")
      ->required();
  AddOutputOption(command, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  AddConnectionFlags(command, &flags->connection);
  command->callback([context, flags] {
    context->action = [context, flags] { return Compare(*flags, context); };
  });
}

}  // namespace kvbench::kvctl
