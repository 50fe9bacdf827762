#include "agent/scenario/scenario_driver.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/runner/runner_options.h"
#include "agent/scenario/cache_server_endpoints.h"
#include "agent/scenario/model_roots.h"
#include "agent/scenario/profile_command.h"
#include "agent/scenario/request_chunks.h"
#include "agent/scenario/result_warnings.h"
#include "agent/scenario/scenario_driver_plan.h"
#include "agent/scenario/scenario_end_event.h"
#include "agent/scenario/scenario_releases.h"
#include "agent/scenario/scenario_result_builder.h"
#include "agent/scenario/scenario_wiring.h"
#include "agent/sim/clock/sim_clock.h"
#include "common/files/atomic_file.h"
#include "common/grpc/agent_link_limits.h"
#include "common/json/proto_json.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

namespace fs = std::filesystem;

namespace {

absl::Duration ReadyTimeout(const v1::Profile& profile, absl::Duration fallback) {
  return profile.has_ready_timeout_s() ? absl::Seconds(profile.ready_timeout_s()) : fallback;
}

// Repeat r of a cell runs with its own seed (Scenario.seed): kv-runner's draw of users
// and warm-up prompts and the simulators' choices follow it. Older jobs carry none.
v1::JobSpec WithScenarioSeed(v1::JobSpec job, const v1::Scenario& scenario) {
  if (scenario.has_seed()) job.set_seed(scenario.seed());
  return job;
}

}  // namespace

ScenarioDriver::ScenarioDriver(const ScenarioEnvironment& env, v1::JobSpec job,
                               v1::Scenario scenario, ScenarioEventSink sink)
    : env_(env),
      job_(WithScenarioSeed(std::move(job), scenario)),
      scenario_(std::move(scenario)),
      sink_(std::move(sink)) {}

ScenarioDriver::~ScenarioDriver() = default;

void ScenarioDriver::Cancel() { cancelled_.store(true); }

std::string ScenarioDriver::ScenarioFile(const std::string& name) const {
  return absl::StrCat(env_.scenario_dir, "/", name);
}

void ScenarioDriver::Phase(v1::ScenarioPhase phase, const ReplayProgress* replay,
                           std::optional<double> replay_elapsed_s) {
  phase_ = phase;
  if (replay != nullptr) {
    replay_counts_.set_requests_done(replay->requests_done());
    replay_counts_.set_sessions_done(replay->sessions_done().value_or(0));
    if (std::optional<int> total = replay->sessions_total()) {
      replay_counts_.set_sessions_total(*total);
    }
    if (std::optional<int64_t> total = replay->requests_total()) {
      replay_counts_.set_requests_total(*total);
    }
    if (replay_elapsed_s) replay_counts_.set_replay_elapsed_s(*replay_elapsed_s);
  }
  v1::Event event;
  v1::Progress* progress = event.mutable_progress();
  // The replay's counts as last seen: collecting and teardown show the final ones, not
  // "teardown 0/32 sessions".
  *progress = replay_counts_;
  progress->set_phase(phase);
  if (progress->sessions_total() == 0) {
    progress->set_sessions_total(scenario_.sessions() > 0 ? scenario_.sessions()
                                                          : scenario_.concurrency());
  }
  // What is left of the replay at its rate so far.
  if (phase == v1::SCENARIO_PHASE_REPLAY && progress->requests_total() > 0 &&
      progress->requests_done() > 0 && progress->has_replay_elapsed_s()) {
    const double left = static_cast<double>(
        std::max<int64_t>(progress->requests_total() - progress->requests_done(), 0));
    progress->set_eta_s(progress->replay_elapsed_s() * left /
                        static_cast<double>(progress->requests_done()));
  }
  progress->set_elapsed_s(absl::ToDoubleSeconds(env_.clock->Monotonic() - started_));
  Send(std::move(event));
}

void ScenarioDriver::Send(v1::Event event) {
  last_sent_ns_.store(absl::ToInt64Nanoseconds(env_.clock->Monotonic()));
  sink_(std::move(event));
}

void ScenarioDriver::Keepalive() {
  const absl::Duration since = env_.clock->Monotonic() - absl::Nanoseconds(last_sent_ns_.load());
  if (since >= kScenarioKeepalivePeriod) Phase(phase_);
}

void ScenarioDriver::Log(v1::LogLine::Severity severity, const std::string& process,
                         const std::string& text) {
  v1::Event event;
  event.mutable_log()->set_severity(severity);
  event.mutable_log()->set_process(process);
  event.mutable_log()->set_text(text);
  Send(std::move(event));
}

absl::StatusOr<ScenarioDriver::Plan> ScenarioDriver::Resolve() {
  Phase(v1::SCENARIO_PHASE_RESOLVING);
  KV_RETURN_IF_ERROR(CheckModelUnderRoots(job_.model(), env_.model_roots));
  Plan plan;
  KV_ASSIGN_OR_RETURN(tiers::ProfileChoice choice, tiers::ChooseProfiles(job_, scenario_.tier()));
  KV_ASSIGN_OR_RETURN(plan.engine, env_.profiles->Find(choice.engine));
  KV_ASSIGN_OR_RETURN(plan.engine_command, ResolveProfileCommand(*env_.programs, *plan.engine));
  if (choice.cache_server) {
    KV_ASSIGN_OR_RETURN(plan.cache, env_.profiles->Find(*choice.cache_server));
    KV_ASSIGN_OR_RETURN(plan.cache_command, ResolveProfileCommand(*env_.programs, *plan.cache));
  }
  const int replicas = job_.has_replicas() ? job_.replicas() : 1;
  if (replicas >= 2) {
    absl::StatusOr<std::string> caddy = env_.programs->Resolve("caddy");
    if (!caddy.ok()) {
      return absl::NotFoundError(absl::StrCat("the load balancer for ", replicas,
                                              " replicas: ", caddy.status().message(),
                                              " (deploy/setup.sh installs it)"));
    }
    plan.caddy_program = *caddy;
  }
  // Releases and the model are checked before anything is pulled or started, so a refusal
  // costs no pull and no start.
  ScenarioPrograms programs{plan.engine, plan.engine_command.front(), plan.cache,
                            plan.cache != nullptr ? plan.cache_command.front() : "",
                            plan.caddy_program};
  KV_ASSIGN_OR_RETURN(plan.releases, ScenarioReleases::Check(env_.releases, programs, job_));
  KV_ASSIGN_OR_RETURN(plan.runner_program, env_.programs->Resolve(kRunnerName));
  if (env_.dataset_provisioner != nullptr) {
    KV_RETURN_IF_ERROR(
        env_.dataset_provisioner->Provision(job_.dataset(), [this] { Keepalive(); }));
  }
  KV_ASSIGN_OR_RETURN(plan.dataset_path, env_.datasets->Resolve(job_.dataset()));

  WiringRequest request;
  request.replicas = replicas;
  request.tensor_parallel_size = job_.has_tensor_parallel_size() ? job_.tensor_parallel_size() : 1;
  request.cache_server = plan.cache != nullptr;
  request.visible_devices = !plan.engine->visible_devices_env().empty();
  request.gpus = env_.gpus;
  KV_ASSIGN_OR_RETURN(plan.wiring, AllocateWiring(*env_.ports, request));
  tiers::ScenarioWiring& wiring = plan.wiring;
  plan.target_url = replicas >= 2 ? wiring.proxy.url() : wiring.replicas.front().url();
  if (scenario_.tier() == v1::NVME) {
    // The pool's size on disk: nvme_pool_gb, or for the simulator its scaled files.
    const double scale =
        plan.cache != nullptr && plan.cache->simulated() ? tiers::kSimL2BytesScale : 1.0;
    const auto pool_bytes =
        static_cast<int64_t>(std::ceil(job_.nvme_pool_gb() * kBytesPerPoolGb * scale));
    KV_ASSIGN_OR_RETURN(wiring.nvme_dir,
                        WipedNvmeDir(env_.nvme_cache_dir, scenario_, env_.run_dir, pool_bytes));
  }
  if (plan.engine->simulated()) {
    // One simulated clock for the scenario's replicas and kv-runner: simulated runs reproduce
    // (sim::SimClock). Its scale is the replicas' --sim-time-scale.
    wiring.sim_clock = ScenarioFile("sim-clock");
    KV_RETURN_IF_ERROR(sim::SimClock::Create(wiring.sim_clock, SimTimeScale(job_)));
  }
  return plan;
}

absl::Status ScenarioDriver::StartCacheServer(const Plan& plan) {
  if (plan.cache == nullptr) return absl::OkStatus();
  Phase(v1::SCENARIO_PHASE_STARTING_CACHE_SERVER);
  tiers::LaunchPlan launch = tiers::RenderCacheServer(*plan.cache, job_, scenario_, plan.wiring,
                                                      plan.releases->cache_server());
  dropped_cache_flags_ = launch.dropped_flags;
  KV_RETURN_IF_ERROR(
      supervisor_->Start(kCacheServerName,
                         WithResolvedCommand(plan.cache_command, launch.argv,
                                             static_cast<size_t>(plan.cache->command_size())),
                         launch.env, launch.unset_env));
  // Ready on whichever health path this release serves; then where its /metrics is.
  KV_ASSIGN_OR_RETURN(cache_metrics_,
                      AwaitCacheServer(*supervisor_, *env_.http, kCacheServerName, plan.wiring,
                                       ReadyTimeout(*plan.cache, kDefaultCacheReadyTimeout)));
  if (!cache_metrics_.tried.empty()) {
    Log(v1::LogLine::WARNING, "agent",
        absl::StrCat("cache server metrics not found: ", cache_metrics_.tried));
  }
  return absl::OkStatus();
}

absl::Status ScenarioDriver::StartReplicas(const Plan& plan) {
  Phase(v1::SCENARIO_PHASE_STARTING_REPLICAS);
  const int replicas = static_cast<int>(plan.wiring.replicas.size());
  for (int i = 0; i < replicas; ++i) {
    tiers::LaunchPlan launch = tiers::RenderReplica(*plan.engine, job_, scenario_, plan.wiring, i);
    KV_RETURN_IF_ERROR(
        supervisor_->Start(ReplicaName(i),
                           WithResolvedCommand(plan.engine_command, launch.argv,
                                               static_cast<size_t>(plan.engine->command_size())),
                           launch.env, launch.unset_env));
  }
  for (int i = 0; i < replicas; ++i) {
    ReadinessProbe probe{plan.wiring.replicas[static_cast<size_t>(i)].url() + "/health"};
    KV_RETURN_IF_ERROR(supervisor_->AwaitReady(
        ReplicaName(i), probe, ReadyTimeout(*plan.engine, kDefaultEngineReadyTimeout)));
  }
  return absl::OkStatus();
}

absl::Status ScenarioDriver::StartProxy(const Plan& plan) {
  if (plan.caddy_program.empty()) return absl::OkStatus();
  Phase(v1::SCENARIO_PHASE_STARTING_PROXY);
  const std::string caddyfile = ScenarioFile("Caddyfile");
  KV_RETURN_IF_ERROR(WriteFileAtomically(
      caddyfile, tiers::RenderCaddyfile(job_, scenario_, plan.wiring,
                                        absl::Seconds(runner::kDefaultRequestTimeoutSeconds))));
  // Caddy keeps its autosave and data under the scenario dir, never in the user's home.
  std::map<std::string, std::string> env = tiers::CaddyUpstreamEnv(plan.wiring);
  env["XDG_CONFIG_HOME"] = ScenarioFile("caddy/config");
  env["XDG_DATA_HOME"] = ScenarioFile("caddy/data");
  KV_RETURN_IF_ERROR(supervisor_->Start(
      kProxyName, {plan.caddy_program, "run", "--config", caddyfile, "--adapter", "caddyfile"},
      env));
  ReadinessProbe probe{absl::StrCat("http://127.0.0.1:", plan.wiring.proxy_admin_port, "/config/"),
                       true};
  return supervisor_->AwaitReady(kProxyName, probe, kProxyReadyTimeout);
}

absl::StatusOr<v1::ScenarioResult> ScenarioDriver::Collect(const Plan& plan) {
  Phase(v1::SCENARIO_PHASE_COLLECTING);
  KV_ASSIGN_OR_RETURN(
      v1::ScenarioResult result,
      BuildScenarioResult(job_, scenario_, plan.dataset_path, ScenarioFile("requests.jsonl"),
                          ScenarioFile("summary.json"), ScenarioFile("prompts.jsonl")));
  for (const std::string& failure : process_failures_) result.add_process_failures(failure);
  result.set_routing(tiers::ScenarioRouting(job_, scenario_.tier()));
  *result.mutable_engine() = sampler_->EngineResult();
  if (std::optional<v1::LmcacheMetrics> lmcache = sampler_->LmcacheResult()) {
    *result.mutable_lmcache() = *lmcache;
  }
  for (v1::TimeSeries& series : sampler_->Series()) *result.add_series() = std::move(series);
  *result.mutable_telemetry() = telemetry_->HostResult();
  if (std::optional<sampler::SimStepLateness> late = sampler_->StepLateness()) {
    v1::HostLoad* load = result.mutable_host_load();
    load->set_sim_steps(late->steps);
    load->set_sim_step_lateness_mean_s(late->mean_s);
    if (late->p90_s) load->set_sim_step_lateness_p90_s(*late->p90_s);
    if (late->p99_s) load->set_sim_step_lateness_p99_s(*late->p99_s);
  }
  if (!plan.wiring.sim_clock.empty()) {
    KV_ASSIGN_OR_RETURN(std::unique_ptr<sim::SimClock> clock,
                        sim::SimClock::Open(plan.wiring.sim_clock));
    result.mutable_host_load()->set_sim_clock_stalls(clock->stalls());
  }
  if (std::optional<v1::DiskMetrics> disk = telemetry_->DiskResult()) {
    *result.mutable_disk() = *disk;
  }
  AddWarnings(plan, &result);
  plan.releases->Record(ScenarioFile("logs"), static_cast<int>(plan.wiring.replicas.size()),
                        plan.engine->kv_connector_module_path(), dropped_cache_flags_, &result);
  // All three in result.json itself, so a kvctl run folder's copy dates its series too.
  result.set_start_unix_ms(start_unix_ms_);
  result.set_replay_start_unix_ms(replay_start_unix_ms_);
  result.set_end_unix_ms(absl::ToUnixMillis(env_.clock->Now()));
  // Whole and durable: a reader (kvctl, the agent after a restart) never finds half a result.
  AtomicWriteOptions durable;
  durable.sync_folder = true;
  KV_RETURN_IF_ERROR(WriteFileAtomically(ScenarioFile("result.json"),
                                         absl::StrCat(ProtoToJson(result, /*pretty=*/true), "\n"),
                                         durable));
  return result;
}

void ScenarioDriver::AddWarnings(const Plan& plan, v1::ScenarioResult* result) {
  if (plan.cache == nullptr) return;
  // kvsim-lmcache's L2 files hold --sim-l2-bytes-scale real bytes per KV byte.
  const double scale = plan.cache->simulated() ? tiers::kSimL2BytesScale : 1.0;
  for (v1::ResultWarning& warning :
       CacheServerWarnings(*result, scenario_.tier(), sampler_->SuccessfulScrapes(kCacheServerName),
                           cache_metrics_.tried, scale)) {
    Log(v1::LogLine::WARNING, "agent", warning.message());
    *result->add_warnings() = std::move(warning);
  }
}

void ScenarioDriver::Teardown(const Plan* plan) {
  Phase(v1::SCENARIO_PHASE_TEARDOWN);
  if (supervisor_ != nullptr) {
    absl::Status stopped = supervisor_->StopAll();
    if (!stopped.ok()) Log(v1::LogLine::WARNING, "agent", std::string(stopped.message()));
  }
  if (plan != nullptr && !plan->wiring.nvme_dir.empty()) {
    std::error_code error;
    fs::remove_all(plan->wiring.nvme_dir, error);
  }
}

void ScenarioDriver::SendRequestRecords() {
  // Every request, to the controller, before the result that summarizes them.
  absl::StatusOr<std::vector<runner::RequestRecord>> records =
      ReadRequestRecords(ScenarioFile("requests.jsonl"));
  if (!records.ok()) {
    KV_LOG(WARNING) << "request records not sent: " << records.status();
    return;
  }
  for (v1::RequestRecords& chunk : ChunkRequestRecords(*records)) {
    v1::Event event;
    *event.mutable_requests() = std::move(chunk);
    Send(std::move(event));
  }
}

absl::StatusOr<v1::ScenarioResult> ScenarioDriver::Run() {
  started_ = env_.clock->Monotonic();
  start_unix_ms_ = absl::ToUnixMillis(env_.clock->Now());
  v1::Event running;
  running.mutable_state_change()->set_state(v1::SCENARIO_STATE_RUNNING);
  Send(std::move(running));

  std::error_code error;
  fs::create_directories(ScenarioFile("logs"), error);
  fs::create_directories(env_.run_dir, error);
  supervisor_ =
      std::make_unique<Supervisor>(env_.launcher, env_.http, env_.clock, ScenarioFile("logs"),
                                   env_.run_dir, env_.stop_grace, &cancelled_, env_.sleeper);
  supervisor_->SetWaitHook([this] { Keepalive(); });
  absl::StatusOr<Plan> plan = Resolve();
  absl::StatusOr<v1::ScenarioResult> result = absl::UnknownError("not run");
  if (!plan.ok()) {
    result = plan.status();
  } else {
    absl::Status started = StartCacheServer(*plan);
    if (started.ok()) started = StartReplicas(*plan);
    if (started.ok()) started = StartProxy(*plan);
    if (started.ok()) started = RunReplay(*plan);
    result = started.ok() ? Collect(*plan) : absl::StatusOr<v1::ScenarioResult>(started);
  }
  Teardown(plan.ok() ? &*plan : nullptr);
  if (cancelled_.load() && result.ok()) result = absl::CancelledError("cancelled");

  absl::Status outcome = result.status();
  // Every request the runner wrote goes to the controller, before the result and the end, whatever
  // the outcome: a failed or cancelled run's rows are the ones its debugging needs, and the
  // agent's copy is pruned in time.
  std::error_code no_file;
  if (result.ok() || fs::exists(ScenarioFile("requests.jsonl"), no_file)) SendRequestRecords();
  if (result.ok()) {
    v1::Event result_event;
    *result_event.mutable_result() = *result;
    Send(std::move(result_event));
    // Sent all the same: its requests and counts show why.
    outcome = ReplayOutcome(*result);
    if (!outcome.ok()) Log(v1::LogLine::ERROR, "agent", std::string(outcome.message()));
  }
  v1::Event end = ScenarioEndEvent(outcome);
  Send(std::move(end));
  if (!outcome.ok()) return outcome;
  return result;
}

}  // namespace kvbench::agent
