// kvctl run SPEC.json [--out DIR]: runs a whole job here, in one process, with an embedded
// controller and agent and no daemons (DESIGN.md "The flow of one job"): the real JobManager
// (EmbeddedController, its store at DIR/<job>/job.db) schedules the job on the embedded agent
// (agent/local LocalAgent) over an in-process AgentLink; progress as it goes, results under
// DIR/<job>/<scenario>/, job.json from the manager's job, and a tier comparison table at the end.

#include <unistd.h>

#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "agent/local/dataset_ceiling.h"
#include "agent/local/local_agent.h"
#include "common/daemon/folder_lock.h"
#include "common/log/file_log_sink.h"
#include "common/status/status_macros.h"
#include "common/time/clock.h"
#include "controller/client/job_plan.h"
#include "controller/client/local_job_files.h"
#include "controller/kvctl/comparison_printer.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/embedded_controller.h"
#include "controller/kvctl/gpu_list_flag.h"
#include "controller/kvctl/held_log_sink.h"
#include "controller/kvctl/job_comparison.h"
#include "controller/kvctl/job_folder_store.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/local_job_record.h"
#include "controller/kvctl/run_progress.h"
#include "controller/results/comparison.h"
#include "controller/results/scenario_run.h"

namespace kvbench::kvctl {
namespace {

struct RunFlags {
  std::string spec_path;
  std::vector<std::string> sets;  // --set KEY=VALUE
  std::string gpus;
  VerdictGate gate = VerdictGate::kNoneInvalid;
  agent::LocalRunOptions options;
};

// The job's folder, its log and the embedded agent, once the embedded controller has named the
// job; then the job runs to its end (or Ctrl-C's cancel). Returns the ended job.
absl::StatusOr<v1::Job> RunSubmitted(const client::JobPlan& plan,
                                     const agent::LocalRunOptions& options,
                                     const v1::SubmitJobResponse& submitted,
                                     FolderLock run_dir_lock, EmbeddedController* embedded,
                                     HeldLogSink* held, RunProgress* progress) {
  const std::string& job_id = submitted.job_id();
  const std::string job_dir = absl::StrCat(options.out_dir, "/", job_id);
  // The embedded agent's and controller's log goes beside the results; the terminal is for
  // progress.
  KV_ASSIGN_OR_RETURN(std::shared_ptr<FileLogSink> log, FileLogSink::Open(job_dir + "/kvctl.log"));
  held->HandTo(log.get());
  SetLogSink(log);
  KV_ASSIGN_OR_RETURN(v1::Job queued, embedded->GetJob(job_id));
  KV_RETURN_IF_ERROR(client::WriteLocalJob(job_dir, queued));
  KV_ASSIGN_OR_RETURN(std::unique_ptr<agent::LocalAgent> local,
                      agent::LocalAgent::Create(options, job_id, std::move(run_dir_lock)));
  progress->Begin(job_id, plan, options.out_dir);
  // What this machine offers, as kv-agent would register it: a scenario it cannot run fails at
  // once with the scheduler's reason.
  embedded->Attach(local->capabilities(), local->spool(), local->runner());
  absl::StatusOr<v1::Job> job =
      embedded->Follow(job_id, [progress](const v1::Event& event) { progress->OnEvent(event); });
  // A cancelled scenario's teardown ends before the link (ControllerLink's rule).
  local->Shutdown();
  embedded->Stop();
  return job;
}

absl::Status RunJob(const RunFlags& flags, KvctlContext* context) {
  absl::StatusOr<client::JobPlan> plan = client::PlanJobFile(flags.spec_path, flags.sets);
  if (!plan.ok()) return plan.status();
  // What `kvctl plan` refuses is refused here before anything starts (a dataset that cannot be
  // read here fails its scenarios with the resolver's error instead).
  absl::StatusOr<agent::DatasetCeiling> ceiling =
      agent::DatasetCeiling::Compute(plan->spec, flags.options.dataset_mirror);
  if (!ceiling.ok()) return ceiling.status();
  if (absl::Status usable = ceiling->CheckCellsHaveUsers(plan->spec); !usable.ok()) return usable;
  if (std::optional<std::string> warning = ceiling->KvCapacityWarning(plan->spec)) {
    *context->err << "warning: " << *warning << "\n";
  }
  agent::LocalRunOptions options = flags.options;
  absl::StatusOr<std::vector<int>> gpus = ParseGpuList(flags.gpus);
  if (!gpus.ok()) return gpus.status();
  options.gpus = *gpus;
  options.gpu_vendor = plan->spec.build();  // --gpus names GPUs of the job's build
  // One run per --out folder at a time, refused before anything is submitted or written.
  absl::StatusOr<FolderLock> run_dir_lock = agent::LocalAgent::LockRunDir(options);
  if (!run_dir_lock.ok()) return run_dir_lock.status();
  // The real controller in this process, its store in the job's folder (<out>/<job>/job.db).
  auto held = std::make_shared<HeldLogSink>();
  std::shared_ptr<LogSink> previous_sink = SetLogSink(held);
  JobFolderStore store(options.out_dir);
  RealClock clock;
  absl::StatusOr<v1::Job> job = absl::UnknownError("not run");
  {
    absl::StatusOr<std::unique_ptr<EmbeddedController>> embedded =
        EmbeddedController::Start(&store, &clock);
    absl::StatusOr<v1::SubmitJobResponse> submitted =
        embedded.ok() ? (*embedded)->Submit(plan->spec)
                      : absl::StatusOr<v1::SubmitJobResponse>(embedded.status());
    RunProgress progress(context->out, ::isatty(STDOUT_FILENO) == 1 && context->out == &std::cout);
    job = submitted.ok() ? RunSubmitted(*plan, options, *submitted, *std::move(run_dir_lock),
                                        embedded->get(), held.get(), &progress)
                         : absl::StatusOr<v1::Job>(submitted.status());
    SetLogSink(previous_sink);
    if (!job.ok()) return job.status();
    const std::string job_dir = absl::StrCat(options.out_dir, "/", job->job_id());
    if (absl::Status written = client::WriteLocalJob(job_dir, *job); !written.ok()) return written;
    progress.End(*job);
  }
  // The tier comparison under each group's verdict (as `kvctl compare` prints it; a capacity
  // search's headline opened the results, RunProgress::End).
  PrintComparison(JobComparison(*job, absl::StrCat(options.out_dir, "/", job->job_id()),
                                ConnectionFlags{}, *context),
                  *context->out);
  // Exit 7 when cancelled; a failed scenario fails the run even when it was cancelled as well (the
  // controller's rule, controller/core/job_outcome.h).
  return RunExitStatus(*job, flags.gate);
}

}  // namespace

void AddRunCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command =
      app->add_subcommand("run", "Run a job here, in one process (embedded agent, no daemons)");
  auto flags = std::make_shared<RunFlags>();
  flags->options.out_dir = "kvbench-results";
  command->add_option("spec", flags->spec_path, "Job spec JSON file")->required();
  AddSpecSetOption(command, &flags->sets);
  AddRequireValidFlag(command, &flags->gate);
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
  command->add_option("--model-root", flags->options.model_roots,
                      "Folder a model given as an absolute path may be under (repeatable)");
  command->callback(
      [context, flags] { context->action = [context, flags] { return RunJob(*flags, context); }; });
}

}  // namespace kvbench::kvctl
