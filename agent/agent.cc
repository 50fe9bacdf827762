#include "agent/agent.h"

#include <sys/prctl.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "agent/agent_environment.h"
#include "agent/link/node_capabilities.h"
#include "agent/preflight/posix_preflight_probes.h"
#include "agent/preflight/preflight_check.h"
#include "agent/scenario/free_space.h"
#include "agent/scenario/scenario_wiring.h"
#include "agent/scenario_dir_pruner.h"
#include "agent/supervisor/supervisor.h"
#include "common/daemon/private_files.h"
#include "common/json/proto_json.h"
#include "common/log/logging.h"
#include "common/metrics/daemon_info_metrics.h"
#include "common/preflight/preflight_rules.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

absl::StatusOr<tiers::ProfileSet> Agent::LoadProfiles(const v1::AgentConfig& config) {
  absl::StatusOr<tiers::ProfileSet> profiles = tiers::ProfileSet::LoadDir(config.profiles_dir());
  if (!profiles.ok()) {
    return absl::Status(
        profiles.status().code(),
        absl::StrCat("profiles_dir ", config.profiles_dir(), ": ", profiles.status().message()));
  }
  return profiles;
}

namespace {

// The start's preflight, logged: one line per check that does not pass, then a summary.
void LogPreflight(const preflight::PreflightReport& report) {
  int failed = 0;
  int warned = 0;
  for (const v1::PreflightCheck& check : report.checks) {
    if (PreflightPasses(check)) continue;
    (check.status() == v1::PREFLIGHT_FAIL ? failed : warned)++;
    KV_LOG(WARNING) << "preflight check=" << check.name()
                    << " status=" << preflight::StatusWord(check.status())
                    << (check.status() == v1::PREFLIGHT_FAIL
                            ? absl::StrCat(" keeps_off=\"", preflight::KeptOff(check), "\"")
                            : "")
                    << " detail=" << check.detail() << " remedy=" << check.remedy();
  }
  KV_LOG(INFO) << "preflight checks=" << report.checks.size() << " fail=" << failed
               << " warn=" << warned << " versions=" << report.versions.size();
}

}  // namespace

absl::StatusOr<Agent::OwnSeams> Agent::DefaultSeams(AgentSeams* seams) {
  OwnSeams own;
  if (seams->registry == nullptr) {
    own.registry = std::make_unique<prometheus::Registry>();
    seams->registry = own.registry.get();
  }
  if (seams->probes == nullptr) {
    KV_ASSIGN_OR_RETURN(own.probes, preflight::PosixPreflightProbes::Create());
    seams->probes = own.probes.get();
  }
  return own;
}

absl::StatusOr<std::unique_ptr<Agent>> Agent::Create(v1::AgentConfig config, AgentSeams seams,
                                                     std::unique_ptr<LinkTransport> transport) {
  KV_ASSIGN_OR_RETURN(OwnSeams own, DefaultSeams(&seams));
  WorkDirLayout layout =
      seams.layout.has_value() ? *seams.layout : WorkDirLayout::ForWorkDir(config.work_dir());
  // One agent per root, taken before anything in it is touched: a second agent here would kill
  // the first one's children (pid files in the run dir below) and share its spool.
  absl::StatusOr<FolderLock> lock = FolderLock::Acquire(layout.root(), layout.owner());
  if (!lock.ok()) {
    return absl::Status(lock.status().code(),
                        layout.root_label().empty()
                            ? std::string(lock.status().message())
                            : absl::StrCat(layout.root_label(), " ", lock.status().message()));
  }
  KV_RETURN_IF_ERROR(layout.EnsureCreated());
  KV_RETURN_IF_ERROR(MakeFolderPrivate(layout.root()));
  // Children's children that lose their parent are re-parented here and reaped, never left
  // running or as zombies (STYLE.md rule 15).
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // The NVMe pool's parent: made here so the capabilities report its free space from the start.
  if (!config.nvme_cache_dir().empty()) {
    std::error_code error;
    std::filesystem::create_directories(config.nvme_cache_dir(), error);
    if (error) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot create nvme_cache_dir ", config.nvme_cache_dir(), ": ", error.message()));
    }
  }
  // Profiles decide what this node runs: a broken one is a start-up error, not a failed job.
  KV_ASSIGN_OR_RETURN(tiers::ProfileSet profiles, LoadProfiles(config));
  // Children of a previous agent that died without stopping them: they would hold GPUs and
  // ports (their pid files are in the run dir).
  const int orphans = Supervisor::KillOrphans(layout.run_dir(), seams.clock, seams.sleeper);
  if (orphans > 0) KV_LOG(WARNING) << "killed orphans of a previous run count=" << orphans;
  // And the NVMe pools its NVME scenarios left (up to nvme_pool_gb each), marked as this
  // layout's: the orphans that wrote into them are gone now.
  if (const int pools = SweepNvmePools(config.nvme_cache_dir(), layout.run_dir()); pools > 0) {
    KV_LOG(WARNING) << "removed NVMe pool dirs a previous run left count=" << pools
                    << " nvme_cache_dir=" << config.nvme_cache_dir();
  }
  // What a scenario will need, checked before any is taken.
  preflight::PreflightReport at_start =
      preflight::Preflight(AgentPreflightInput(config, seams), &profiles, seams.probes).RunAll();
  LogPreflight(at_start);
  // The GPUs NVML finds, when the config lists none: offered at registration, so pinned too.
  if (config.gpus_size() == 0)
    *config.mutable_gpus() = DiscoverCapabilities(config, profiles).gpus();
  RegisterDaemonInfoMetrics(seams.registry, "agent", seams.clock->Now());
  std::unique_ptr<Agent> agent(new Agent(std::move(config), *std::move(lock), std::move(layout),
                                         std::move(profiles), std::move(own), std::move(seams),
                                         std::move(at_start)));
  KV_RETURN_IF_ERROR(agent->CreateLinkParts(std::move(transport)));
  return agent;
}

absl::Status Agent::CreateLinkParts(std::unique_ptr<LinkTransport> transport) {
  KV_ASSIGN_OR_RETURN(spool_, EventSpool::Open(layout_.spool_dir()));
  KV_ASSIGN_OR_RETURN(worker_,
                      ThreadScenarioWorker::Create(
                          AgentEnvironmentOptions(config_, layout_, profiles_, seams_), layout_));
  if (config_.controller_address().empty() && transport == nullptr) return absl::OkStatus();
  ControllerLinkOptions options;
  options.agent_id = config_.agent_id();
  // The address names the controller in the link's log lines.
  options.controller_address = transport == nullptr ? config_.controller_address() : "in-process";
  options.tls = config_.tls();
  options.insecure = config_.insecure();
  if (config_.heartbeat_interval_s() > 0) {
    options.heartbeat_interval = absl::Seconds(config_.heartbeat_interval_s());
  }
  if (!config_.nvme_cache_dir().empty()) {
    options.nvme_free_bytes = [dir = config_.nvme_cache_dir()] { return FreeBytesUnder(dir); };
  }
  options.preflight = [monitor = preflight_monitor_.get()] { return monitor->NotPassing(); };
  v1::AgentCapabilities capabilities = DiscoverCapabilities(config_, profiles_);
  for (const v1::ComponentVersion& version : versions_) *capabilities.add_versions() = version;
  for (const v1::PreflightCheck& check : preflight_monitor_->Latest()) {
    *capabilities.add_preflight() = check;
  }
  if (transport != nullptr) {
    link_ = ControllerLink::CreateWithTransport(std::move(options), std::move(capabilities),
                                                spool_.get(), worker_.get(), clock_, executor_,
                                                std::move(transport));
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<ControllerLink>> link = ControllerLink::Create(
      options, std::move(capabilities), spool_.get(), worker_.get(), clock_, executor_);
  if (!link.ok()) {
    return absl::Status(link.status().code(),
                        absl::StrCat("controller link: ", link.status().message()));
  }
  link_ = *std::move(link);
  return absl::OkStatus();
}

Agent::Agent(v1::AgentConfig config, FolderLock work_dir_lock, WorkDirLayout layout,
             tiers::ProfileSet profiles, OwnSeams own, AgentSeams seams,
             preflight::PreflightReport at_start)
    : config_(std::move(config)),
      work_dir_lock_(std::move(work_dir_lock)),
      layout_(std::move(layout)),
      profiles_(std::move(profiles)),
      own_seams_(std::move(own)),
      seams_(std::move(seams)),
      clock_(seams_.clock),
      executor_(seams_.executor),
      start_monotonic_(clock_->Monotonic()),
      preflight_(AgentPreflightInput(config_, seams_), &profiles_, seams_.probes),
      versions_(std::move(at_start.versions)),
      preflight_monitor_(
          std::make_unique<preflight::PreflightMonitor>(&preflight_, std::move(at_start.checks))),
      last_preflight_(start_monotonic_),
      uptime_seconds_(prometheus::BuildGauge()
                          .Name("kvbench_agent_uptime_seconds")
                          .Help("Seconds since the agent started")
                          .Register(*seams_.registry)
                          .Add({})),
      scenarios_running_(prometheus::BuildGauge()
                             .Name("kvbench_agent_scenarios_running")
                             .Help("Scenarios this agent is running now (0 or 1)")
                             .Register(*seams_.registry)
                             .Add({})) {}

Agent::~Agent() { Shutdown(); }

void Agent::Start() {
  KV_LOG(INFO) << "agent started agent_id=" << config_.agent_id() << " work_dir=" << layout_.root()
               << " profiles=" << profiles_.names().size() << " config=" << ProtoToJson(config_);
  if (config_.insecure()) {
    KV_LOG(WARNING) << "insecure mode: the controller link is not authenticated or encrypted";
  }
  if (link_ != nullptr) {
    link_->Start();
  } else {
    KV_LOG(INFO) << "no controller_address: not dialing a controller";
  }
  Housekeeping();
  housekeeping_task_ =
      executor_->RunEvery("agent.housekeeping", kHousekeepingPeriod, [this] { Housekeeping(); });
}

void Agent::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  // Reverse of the dependency order: no new assignments, then the running scenario ends (its
  // last events go to the spool for the next start to send).
  if (link_ != nullptr) link_->Stop();
  if (worker_ != nullptr) worker_->Shutdown();
  preflight_monitor_->Stop();
  if (!housekeeping_task_.valid()) return;
  executor_->Cancel(housekeeping_task_);
  housekeeping_task_ = TaskId{};
  KV_LOG(INFO) << "agent stopped agent_id=" << config_.agent_id();
}

bool Agent::Idle() const { return worker_ == nullptr || worker_->running_scenario_id().empty(); }

void Agent::MaybeRecheckPreflight() {
  const absl::Duration now = clock_->Monotonic();
  if (!Idle() || now - last_preflight_ < preflight::kRecheckPeriod) return;
  last_preflight_ = now;
  preflight_monitor_->RequestRecheck([this] { return Idle(); });
}

void Agent::Housekeeping() {
  uptime_seconds_.Set(absl::ToDoubleSeconds(clock_->Monotonic() - start_monotonic_));
  scenarios_running_.Set(Idle() ? 0 : 1);
  MaybeRecheckPreflight();
  const absl::Duration now = clock_->Monotonic();
  if (!last_prune_.has_value() || now - *last_prune_ >= kPrunePeriod) {
    last_prune_ = now;
    PruneScenarios();
  }
}

void Agent::PruneScenarios() {
  const double days = config_.scenario_retention_days();
  if (days <= 0) return;
  std::string keep;
  if (worker_ != nullptr) {
    const v1::ScenarioAttempt running = worker_->running();
    if (!running.scenario_id().empty()) {
      keep = layout_.ScenarioDir(running.job_id(), running.scenario_id(), running.attempt());
    }
  }
  const int removed = PruneScenarioDirs(layout_, absl::Hours(24) * days, clock_->Now(), keep);
  if (removed > 0) {
    KV_LOG(INFO) << "removed scenario folders past scenario_retention_days count=" << removed
                 << " days=" << days;
  }
}

}  // namespace kvbench::agent
