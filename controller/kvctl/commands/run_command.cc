// kvctl run SPEC.json [--out DIR]: runs a whole job here, in one process, with an embedded
// controller and agent and no daemons (DESIGN.md "The flow of one job"): the job is named first,
// so its folder DIR/<job>/ is known; the agent (agent/agent.h, the one kv-agent runs, with kvctl
// run's config and seams: agent/local/local_run_config.h) locks DIR/.run and starts; the real
// JobManager (EmbeddedController, its store at DIR/<job>/job.db) schedules the job on it over an
// in-process AgentLink; progress as it goes, results under DIR/<job>/<scenario>/, job.json from
// the manager's job, and a tier comparison table at the end.

#include <unistd.h>

#include <filesystem>
#include <memory>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "agent/local/local_run_config.h"
#include "common/log/file_log_sink.h"
#include "common/status/status_macros.h"
#include "common/time/clock.h"
#include "common/time/sleeper.h"
#include "controller/client/job_plan.h"
#include "controller/client/local_job_files.h"
#include "controller/core/job_state_machine.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/embedded/embedded_controller.h"
#include "controller/kvctl/embedded/held_log_sink.h"
#include "controller/kvctl/gpu_list_flag.h"
#include "controller/kvctl/job_comparison.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/local_job_record.h"
#include "controller/kvctl/print/comparison_printer.h"
#include "controller/kvctl/print/run_progress.h"
#include "controller/results/comparison.h"
#include "controller/results/scenario_run.h"
#include "controller/store/sql_store.h"

namespace kvbench::kvctl {
namespace {

struct RunFlags {
  std::string spec_path;
  std::vector<std::string> sets;  // --set KEY=VALUE
  std::string gpus;
  VerdictGate gate = VerdictGate::kNoneInvalid;
  agent::LocalRunOptions options;
};

// The job store's file name inside the job's folder.
constexpr char kStoreFileName[] = "job.db";

// The process's world, made once: one clock for the agent and the controller.
struct RunWorld {
  RealClock clock;
  RealSleeper sleeper;
};

// With the agent made: the job's folder and log, the controller started over the job's store
// (`*store`, which outlives it), the agent started, the job submitted under its name and followed
// to its end (or Ctrl-C's cancel). Returns the ended job.
absl::StatusOr<v1::Job> SubmitAndFollow(const client::JobPlan& plan,
                                        const agent::LocalRunOptions& options,
                                        const std::string& job_id, agent::Agent* local,
                                        EmbeddedController* embedded,
                                        std::unique_ptr<controller::SqlStore>* store,
                                        HeldLogSink* held, RunProgress* progress) {
  const std::string job_dir = absl::StrCat(options.out_dir, "/", job_id);
  std::error_code error;
  std::filesystem::create_directories(job_dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", job_dir, ": ", error.message()));
  }
  // The agent's and controller's log goes beside the results; the terminal is for progress.
  KV_ASSIGN_OR_RETURN(std::shared_ptr<FileLogSink> log, FileLogSink::Open(job_dir + "/kvctl.log"));
  held->HandTo(log.get());
  SetLogSink(log);
  KV_ASSIGN_OR_RETURN(*store,
                      controller::SqlStore::OpenSqlite(absl::StrCat(job_dir, "/", kStoreFileName)));
  controller::JobManagerOptions manager_options;
  manager_options.only_job_id = job_id;
  local->Start();  // its first stream opens on the loop, once the controller runs it
  KV_RETURN_IF_ERROR(embedded->Start(store->get(), manager_options));
  KV_ASSIGN_OR_RETURN(v1::SubmitJobResponse submitted, embedded->Submit(plan.spec));
  KV_ASSIGN_OR_RETURN(v1::Job queued, embedded->GetJob(submitted.job_id()));
  KV_RETURN_IF_ERROR(client::WriteLocalJob(job_dir, queued));
  progress->Begin(job_id, plan, options.out_dir);
  return embedded->Follow(job_id, [progress](const v1::Event& event) { progress->OnEvent(event); });
}

// The agent kv-agent runs, made with kvctl run's config and seams on the embedded controller's
// loop, runs the job named `job_id` (SubmitAndFollow); then everything stops in reverse order.
absl::StatusOr<v1::Job> RunNamedJob(const client::JobPlan& plan,
                                    const agent::LocalRunOptions& options,
                                    const std::string& job_id, RunWorld* world, HeldLogSink* held,
                                    RunProgress* progress) {
  const std::string job_dir = absl::StrCat(options.out_dir, "/", job_id);
  std::unique_ptr<controller::SqlStore> store;  // outlives the controller that uses it
  std::unique_ptr<EmbeddedController> embedded = EmbeddedController::Create(&world->clock);
  agent::AgentSeams seams = agent::LocalRunConfig::Seams(options, job_id);
  seams.clock = &world->clock;
  seams.sleeper = &world->sleeper;
  seams.executor = embedded->executor();
  // Locks <out>/.run first: a second run of the same --out folder is refused here, before it
  // writes anything. A start that fails later leaves no job folder either.
  std::error_code error;
  const bool job_dir_existed = std::filesystem::exists(job_dir, error);
  absl::StatusOr<std::unique_ptr<agent::Agent>> local =
      agent::Agent::Create(agent::LocalRunConfig::AgentConfig(options, job_id), std::move(seams),
                           embedded->AgentTransport());
  if (!local.ok()) {
    if (!job_dir_existed) std::filesystem::remove_all(job_dir, error);
    return local.status();
  }
  const std::string spool_dir = (*local)->layout().spool_dir();
  absl::StatusOr<v1::Job> job =
      SubmitAndFollow(plan, options, job_id, local->get(), embedded.get(), &store, held, progress);
  // A cancelled scenario's teardown ends before the controller's loop (ControllerLink's rule).
  (*local)->Shutdown();
  embedded->Stop();
  local->reset();
  // The run's spool is the run's alone: nothing is left unsent once the job ended.
  std::filesystem::remove_all(spool_dir, error);
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
  RunWorld world;
  // Named before anything starts: the job's folder holds its store, log and results.
  absl::BitGen random;
  const std::string job_id = controller::FormatJobId(plan->spec.name(), world.clock.Now(),
                                                     absl::Uniform<uint64_t>(random));
  const std::string job_dir = absl::StrCat(options.out_dir, "/", job_id);
  auto held = std::make_shared<HeldLogSink>();
  std::shared_ptr<LogSink> previous_sink = SetLogSink(held);
  absl::StatusOr<v1::Job> job = absl::UnknownError("not run");
  {
    RunProgress progress(context->out, ::isatty(STDOUT_FILENO) == 1 && context->out == &std::cout);
    job = RunNamedJob(*plan, options, job_id, &world, held.get(), &progress);
    SetLogSink(previous_sink);
    if (!job.ok()) return job.status();
    if (absl::Status written = client::WriteLocalJob(job_dir, *job); !written.ok()) return written;
    progress.End(*job);
  }
  // The tier comparison under each group's verdict (as `kvctl compare` prints it; a capacity
  // search's headline opened the results, RunProgress::End).
  PrintComparison(JobComparison(*job, job_dir, ConnectionFlags{}, *context), *context->out);
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
  command
      ->add_option("--scenario-retention-days", flags->options.scenario_retention_days,
                   "Remove scenario folders under --out older than this many days (0 keeps them)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command->callback(
      [context, flags] { context->action = [context, flags] { return RunJob(*flags, context); }; });
}

}  // namespace kvbench::kvctl
