// ScenarioDriver's replay: the runner behind its warm-up gate, the loop that samples, watches
// and stops it (scenario_driver.h RunReplay), and the samplers that loop feeds.

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/runner/runner_argv.h"
#include "agent/runner/runner_options.h"
#include "agent/sampler/host_cpu_sample.h"
#include "agent/scenario/replay_watchdog.h"
#include "agent/scenario/sampler_options.h"
#include "agent/scenario/scenario_driver.h"
#include "agent/scenario/scenario_driver_plan.h"
#include "agent/supervisor/pid_file.h"
#include "agent/telemetry/launcher_command_runner.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

namespace fs = std::filesystem;

std::unique_ptr<sampler::Sampler> ScenarioDriver::MakeSampler(const Plan& plan) {
  std::vector<sampler::ScrapeTarget> targets;
  for (size_t i = 0; i < plan.wiring.replicas.size(); ++i) {
    targets.push_back(
        {ReplicaName(static_cast<int>(i)), plan.wiring.replicas[i].url() + "/metrics", false});
  }
  if (plan.cache != nullptr) targets.push_back({kCacheServerName, cache_metrics_.url, true});
  const sampler::Sampler::Options options =
      SamplerOptionsForJob(job_, ScenarioFile("samples.jsonl"));
  return std::make_unique<sampler::Sampler>(env_.http, std::move(targets), options,
                                            [this](const v1::Sample& sample) {
                                              v1::Event event;
                                              *event.mutable_sample() = sample;
                                              Send(std::move(event));
                                            });
}

std::unique_ptr<sampler::TelemetrySampler> ScenarioDriver::MakeTelemetrySampler(const Plan& plan,
                                                                                int runner_pid) {
  sampler::TelemetrySampler::Options options;
  for (const std::string& name : supervisor_->names()) {
    if (std::optional<int> pid = supervisor_->pid(name)) options.processes.emplace_back(name, *pid);
  }
  options.processes.emplace_back(kRunnerName, runner_pid);
  options.disk_path = plan.wiring.nvme_dir;
  if (job_.build() == v1::AMD) {
    options.amd_runner = telemetry::LauncherCommandRunner(env_.launcher, ScenarioFile("logs"));
  }
  return std::make_unique<sampler::TelemetrySampler>(options, env_.clock);
}

void ScenarioDriver::Scrape(const char* kind, double t_s) {
  sampler_->Scrape(kind, t_s);
  if (std::optional<telemetry::CpuTimes> cpu = telemetry_->Sample()) {
    sampler_->Record(sampler::HostCpuSample(kind, t_s, *cpu));
  }
}

std::vector<std::string> ScenarioDriver::ReportExitedChildren(const char* when) {
  std::vector<std::string> exits = supervisor_->ExitedChildren();
  for (const std::string& exited : exits) {
    std::string failure = absl::StrCat(exited, " ", when);
    Log(v1::LogLine::ERROR, "agent", failure);
    process_failures_.push_back(std::move(failure));
  }
  return exits;
}

std::vector<WatchedProcess> ScenarioDriver::Processes(const Process& runner) const {
  std::vector<WatchedProcess> processes;
  for (const std::string& name : supervisor_->names()) {
    if (std::optional<int> pid = supervisor_->pid(name)) processes.push_back({name, *pid});
  }
  processes.push_back({kRunnerName, runner.pid()});
  return processes;
}

absl::Status ScenarioDriver::RunReplay(const Plan& plan) {
  Phase(v1::SCENARIO_PHASE_WARMUP);
  runner::RunnerPaths paths{plan.runner_program,
                            plan.target_url,
                            plan.dataset_path,
                            ScenarioFile("requests.jsonl"),
                            ScenarioFile("summary.json"),
                            ScenarioFile("prompts.jsonl"),
                            ScenarioFile("runner.ready"),
                            plan.wiring.sim_clock};
  std::error_code error;
  fs::remove(paths.ready_file, error);
  fs::remove(paths.prompts_path, error);
  ProcessSpec spec;
  spec.name = kRunnerName;
  spec.argv = runner::RunnerArgv(job_, scenario_, paths);
  spec.stdout_path = ScenarioFile(absl::StrCat("logs/", kRunnerName, ".log"));
  sampler_ = MakeSampler(plan);
  KV_ASSIGN_OR_RETURN(std::unique_ptr<Process> runner, env_.launcher->Launch(spec));
  telemetry_ = MakeTelemetrySampler(plan, runner->pid());
  // Like every supervised child, the runner has a pid file while it runs: an agent killed with
  // -9 leaves it to the next start's orphan sweep (it finished the replay on its own before).
  const std::string pid_file = absl::StrCat(env_.run_dir, "/", kRunnerName, ".pid");
  if (absl::Status written = WritePidFile(pid_file, runner->pid()); !written.ok()) {
    Log(v1::LogLine::WARNING, "agent", std::string(written.message()));
  }
  auto remove_pid_file = absl::MakeCleanup([&pid_file] { RemovePidFile(pid_file); });
  // The warm-up gate: the runner creates its ready file after its warm-up requests and prompt
  // counting, then waits for SIGUSR1; "before" is scraped in between, so before→after deltas
  // hold the replay's requests only. A runner that exits first gets "before" at its exit.
  ReplayProgress progress(paths.output_path, paths.prompts_path);
  bool gate_open = false;
  absl::Duration replay_start = env_.clock->Monotonic();
  auto since_start = [&] { return absl::ToDoubleSeconds(env_.clock->Monotonic() - replay_start); };
  auto open_gate = [&] {
    progress.LoadPlan();  // kv-runner wrote its plan before its gate
    Scrape("before", 0);
    replay_start = env_.clock->Monotonic();
    replay_start_unix_ms_ = absl::ToUnixMillis(env_.clock->Now());  // t_s = 0 on the wall clock
    gate_open = true;
  };
  // Bounded hangs: the runner is stopped when the tier's cache server dies or when
  // no request completes for progress_timeout_s; then it gets the stop grace to write its output.
  ReplayWatchdog watchdog(absl::Seconds(job_.progress_timeout_s()), env_.clock->Monotonic(),
                          scenario_.tier(), plan.cache != nullptr ? kCacheServerName : "");
  std::optional<absl::Duration> stop_sent;
  std::optional<double> last_response_s;  // when requests.jsonl last grew, since the gate
  // Poll at least as often as the sampler's period (short under a simulator's time scale), and
  // briskly while the runner waits at the gate.
  const absl::Duration poll =
      std::min(kReplayPollPeriod, absl::Seconds(std::max(sampler_->period_s(), 0.01)));
  for (;;) {
    absl::StatusOr<ExitStatus> exit = runner->Wait(gate_open ? poll : kGatePollPeriod);
    Keepalive();  // the warm-up, and a replay between responses
    for (const std::string& exited : ReportExitedChildren("during the replay")) {
      watchdog.ChildExited(exited);
    }
    if (!gate_open && (exit.ok() || fs::exists(paths.ready_file, error))) {
      open_gate();
      watchdog.Progressed(env_.clock->Monotonic());
      if (!exit.ok()) runner->Signal(SIGUSR1).IgnoreError();
    }
    // Progress before the scrape: a scrape after the last response seen must not count as
    // in-replay (replay_window.h).
    const bool progressed = progress.Update();
    if (progressed && gate_open) last_response_s = since_start();
    if (exit.ok()) {
      if (last_response_s) sampler_->SetLastResponse(*last_response_s);
      Scrape("after", since_start());
    } else if (gate_open && sampler_->Due(since_start())) {
      Scrape("periodic", since_start());
    }
    if (progressed || (progress.requests_done() > 0 && phase_ == v1::SCENARIO_PHASE_WARMUP)) {
      Phase(v1::SCENARIO_PHASE_REPLAY, &progress, since_start());
    }
    if (progressed) watchdog.Progressed(env_.clock->Monotonic());
    if (exit.ok()) {
      // The watchdog's reason first: the runner's own end came from being stopped for it.
      if (watchdog.failure().has_value()) return *watchdog.failure();
      if (exit->success()) return absl::OkStatus();
      if (cancelled_.load() && !exit->signaled && exit->code == kRunnerStoppedExitCode) {
        return absl::CancelledError("cancelled during the replay; output written");
      }
      const std::vector<std::string> tail = runner->LogTail(Supervisor::kLogTailLines);
      return absl::FailedPreconditionError(absl::StrCat(
          kRunnerName, " ", exit->ToString(), "; last lines of its log:", tail.empty() ? "" : "\n",
          absl::StrJoin(tail, "\n")));
    }
    const absl::Duration now = env_.clock->Monotonic();
    if (cancelled_.load() || watchdog.Check(now, Processes(*runner)).has_value()) {
      if (!stop_sent.has_value()) {
        if (watchdog.failure().has_value()) {
          Log(v1::LogLine::ERROR, "agent", watchdog.failure()->ToString());
        }
        runner->Signal(SIGTERM).IgnoreError();  // it writes its output
        stop_sent = now;
      } else if (now - *stop_sent > env_.stop_grace) {
        runner->Signal(SIGKILL).IgnoreError();  // wedged in a request past the grace
      }
    }
  }
}

}  // namespace kvbench::agent
