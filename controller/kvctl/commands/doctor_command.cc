// kvctl doctor [SPEC.json]: the preflight of `kvctl run`'s host, without running
// anything: the checks `kv-agent --preflight` runs on a node (agent/preflight), with the folders,
// profiles and GPUs `kvctl run` would use given the same flags, and with a spec its model,
// dataset and pools. Printed as kv-agent prints them; exit 0 when no check FAILs, 5 when one does.

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/local/local_preflight.h"
#include "common/log/logging.h"
#include "controller/client/job_plan.h"
#include "controller/kvctl/gpu_list_flag.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"

namespace kvbench::kvctl {
namespace {

struct DoctorFlags {
  std::string spec_path;          // optional
  std::vector<std::string> sets;  // --set KEY=VALUE on the spec
  std::string gpus;
  OutputFormat format = OutputFormat::kTable;
  agent::LocalRunOptions options;
};

absl::Status RunDoctor(const DoctorFlags& flags, KvctlContext* context) {
  std::optional<v1::JobSpec> spec;
  if (!flags.spec_path.empty()) {
    absl::StatusOr<client::JobPlan> plan = client::PlanJobFile(flags.spec_path, flags.sets);
    if (!plan.ok()) return plan.status();
    spec = plan->spec;
  }
  agent::LocalRunOptions options = flags.options;
  absl::StatusOr<std::vector<int>> gpus = ParseGpuList(flags.gpus);
  if (!gpus.ok()) return gpus.status();
  options.gpus = *gpus;
  // The probes' "process started" lines are not the doctor's output.
  const LogLevel log_level = MinLogLevel();
  SetMinLogLevel(std::max(log_level, LogLevel::kWarning));
  absl::StatusOr<agent::preflight::PreflightReport> report =
      agent::RunLocalPreflight(options, spec);
  SetMinLogLevel(log_level);
  if (!report.ok()) return report.status();
  if (flags.format == OutputFormat::kJson) {
    *context->out << agent::preflight::PreflightJson(*report) << "\n";
  } else {
    *context->out << "kvctl doctor: the preflight of kvctl run on this host"
                  << (spec.has_value() ? absl::StrCat(" for ", flags.spec_path) : "") << "\n";
    agent::preflight::PrintPreflight(*report, *context->out);
  }
  return agent::preflight::PreflightOutcome(*report);
}

}  // namespace

void AddDoctorCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "doctor",
      "Check this host for kvctl run (programs, GPUs, NVMe dir, ports, models, datasets)");
  auto flags = std::make_shared<DoctorFlags>();
  flags->options.out_dir = "kvbench-results";
  command->add_option("spec", flags->spec_path,
                      "Job spec JSON file: also check its model, dataset and pools");
  AddSpecSetOption(command, &flags->sets);
  AddOutputOption(command, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  command->add_option("--out", flags->options.out_dir, "Results folder kvctl run would use")
      ->capture_default_str();
  command->add_option("--profiles", flags->options.profiles_dir,
                      "Profiles folder (default: as kvctl run finds it)");
  command->add_option("--dataset-mirror", flags->options.dataset_mirror,
                      "Folder holding datasets (as kvctl run's)");
  command->add_option("--nvme-cache-dir", flags->options.nvme_cache_dir,
                      "NVME tier's L2 pool parent folder (default: under --out)");
  command->add_option("--gpus", flags->gpus, "GPU indices kvctl run would get, e.g. 0,1");
  command->add_option("--model-root", flags->options.model_roots,
                      "Folder a model given as an absolute path may be under (repeatable)");
  command->callback([context, flags] {
    context->action = [context, flags] { return RunDoctor(*flags, context); };
  });
}

}  // namespace kvbench::kvctl
