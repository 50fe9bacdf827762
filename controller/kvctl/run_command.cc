// kvctl run SPEC.json [--out DIR]: runs a whole job here, in one process, with an embedded agent
// and no daemons (DESIGN.md "The flow of one job"): progress as it goes, results under
// DIR/<job>/<scenario>/, and a tier comparison table at the end.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "agent/local/dataset_ceiling.h"
#include "agent/local/local_job_run.h"
#include "common/cli/stop_flag.h"
#include "common/log/file_log_sink.h"
#include "controller/client/job_plan.h"
#include "controller/client/local_job_files.h"
#include "controller/kvctl/comparison_printer.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/local_job_record.h"
#include "controller/kvctl/run_progress.h"
#include "controller/results/comparison.h"
#include "controller/results/scenario_run.h"

namespace kvbench::kvctl {
namespace {

absl::StatusOr<std::vector<int>> ParseGpus(const std::string& text) {
  std::vector<int> gpus;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    int gpu = 0;
    if (!absl::SimpleAtoi(part, &gpu) || gpu < 0) {
      return absl::InvalidArgumentError(absl::StrCat("--gpus: \"", part, "\" is not a GPU index"));
    }
    gpus.push_back(gpu);
  }
  return gpus;
}

struct RunFlags {
  std::string spec_path;
  std::string gpus;
  agent::LocalRunOptions options;
};

absl::Status RunJob(const RunFlags& flags, KvctlContext* context) {
  absl::StatusOr<client::JobPlan> plan = client::PlanJobFile(flags.spec_path);
  if (!plan.ok()) return plan.status();
  // What `kvctl plan` refuses is refused here before anything starts (a dataset that cannot be
  // read here fails its scenarios with the resolver's error instead).
  absl::StatusOr<agent::DatasetCeiling> ceiling =
      agent::DatasetCeiling::Compute(plan->spec, flags.options.dataset_mirror);
  if (!ceiling.ok()) return ceiling.status();
  if (absl::Status usable = ceiling->CheckCellsHaveUsers(plan->spec); !usable.ok()) return usable;
  agent::LocalRunOptions options = flags.options;
  absl::StatusOr<std::vector<int>> gpus = ParseGpus(flags.gpus);
  if (!gpus.ok()) return gpus.status();
  options.gpus = *gpus;
  const std::string job_id = absl::StrCat(
      plan->spec.name(), "-", absl::FormatTime("%Y%m%dT%H%M%S", absl::Now(), absl::UTCTimeZone()));
  // The embedded agent's own log goes beside the results; the terminal is for progress.
  const std::string job_dir = absl::StrCat(options.out_dir, "/", job_id);
  std::error_code error;
  std::filesystem::create_directories(job_dir, error);
  absl::StatusOr<std::shared_ptr<FileLogSink>> log = FileLogSink::Open(job_dir + "/kvctl.log");
  if (!log.ok()) return log.status();
  std::shared_ptr<LogSink> previous_sink = SetLogSink(*log);
  v1::Job job = LocalJob(job_id, *plan, absl::Now());
  if (absl::Status written = client::WriteLocalJob(job_dir, job); !written.ok()) return written;
  RunProgress progress(context->out, ::isatty(STDOUT_FILENO) == 1 && context->out == &std::cout);
  progress.Begin(job_id, *plan, options.out_dir);
  std::atomic<bool>* cancel = InstallStopFlag();
  absl::StatusOr<std::vector<agent::LocalScenarioOutcome>> outcomes = agent::LocalJobRun::Run(
      plan->spec, plan->scenarios, job_id, options,
      [&progress](const v1::Event& event) { progress.OnEvent(event); }, cancel);
  SetLogSink(previous_sink);
  if (!outcomes.ok()) return outcomes.status();
  RecordOutcomes(*outcomes, absl::Now(), &job);
  if (absl::Status written = client::WriteLocalJob(job_dir, job); !written.ok()) return written;
  progress.End(*outcomes);
  // The tier comparison under each group's verdict (as `kvctl compare` prints it).
  PrintComparison(results::BuildComparison(results::RunsOfJob(job),
                                           {job.validity().begin(), job.validity().end()}),
                  *context->out);
  // Exit 7 when cancelled; a failed scenario fails the run even when it was cancelled as well (the
  // controller's rule, controller/core/job_outcome.h).
  return RunExitStatus(job);
}

}  // namespace

void AddRunCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command =
      app->add_subcommand("run", "Run a job here, in one process (embedded agent, no daemons)");
  auto flags = std::make_shared<RunFlags>();
  flags->options.out_dir = "kvbench-results";
  command->add_option("spec", flags->spec_path, "Job spec JSON file")->required();
  command->add_option("--out", flags->options.out_dir, "Results folder (DIR/<job>/<scenario>/)")
      ->capture_default_str();
  command->add_option("--profiles", flags->options.profiles_dir,
                      "Profiles folder (default: $KV_PROFILES_DIR, else the ones shipped beside "
                      "kvctl: installed or the source tree's deploy/profiles)");
  command->add_option("--dataset-mirror", flags->options.dataset_mirror,
                      "Folder holding datasets (searched first; then $KV_DATASET_MIRROR and the "
                      "demo's datasets shipped beside kvctl)");
  command->add_option("--nvme-cache-dir", flags->options.nvme_cache_dir,
                      "NVME tier's L2 pool parent folder (default: under --out)");
  command->add_option("--gpus", flags->gpus, "GPU indices for vllm engines, e.g. 0,1,2,3");
  command->callback(
      [context, flags] { context->action = [context, flags] { return RunJob(*flags, context); }; });
}

}  // namespace kvbench::kvctl
