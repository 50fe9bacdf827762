#include "controller/controller.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/daemon/private_files.h"
#include "common/files/private_file.h"
#include "common/grpc/grpc_core_log.h"
#include "common/json/proto_json.h"
#include "common/log/logging.h"
#include "common/metrics/daemon_info_metrics.h"
#include "common/status/exit_code.h"
#include "common/status/status_macros.h"
#include "controller/alerts/alert_text.h"
#include "controller/config/controller_config_validator.h"
#include "controller/store/sql_store.h"

namespace kvbench::controller {
namespace {

// Agents are told to beat often enough that the timeout spans three missed beats.
absl::Duration HeartbeatInterval(absl::Duration timeout) {
  return std::min(kDefaultHeartbeatInterval, timeout / 3);
}

// The store the config names: PostgreSQL with the connection string of dsn_file, else the SQLite
// file in data_dir.
absl::StatusOr<std::unique_ptr<SqlStore>> OpenStore(const v1::ControllerConfig& config) {
  if (!config.store().has_postgresql()) {
    return SqlStore::OpenSqlite(absl::StrCat(config.data_dir(), "/", kStoreFileName));
  }
  KV_ASSIGN_OR_RETURN(std::string dsn, ReadOwnerOnlyFile(config.store().postgresql().dsn_file(),
                                                         "store.postgresql.dsn_file"));
  return SqlStore::OpenPostgres(dsn);
}

// The lease settings of a shared store: who this process is, where it serves, how long a lease.
ControllerLeaseOptions LeaseOptions(const v1::ControllerConfig& config) {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  ControllerLeaseOptions options;
  options.holder = absl::StrCat("kv-controller pid ", ::getpid(), " on ", host);
  // advertise_address when the listen address is not one clients can dial (0.0.0.0:7070);
  // listen_address is the bound one by now (the standby's server has bound it).
  options.address = config.store().postgresql().advertise_address();
  if (options.address.empty()) options.address = config.listen_address();
  const double lease_s = config.store().postgresql().lease_s();
  options.lease = absl::Seconds(lease_s > 0 ? lease_s : kDefaultLeaseSeconds);
  return options;
}

// Calls a standby's server still answers when its controller starts leading: reads of the store.
constexpr absl::Duration kStandbyShutdownGrace = absl::Seconds(1);

// A controller whose lease another took over stops at once: its writes are fenced already, and
// what it holds in memory is the old term's. Exit 5 (FAILED_PRECONDITION), or 4 (UNAVAILABLE)
// when the lease went unrenewed for a lease (the database out of reach): a supervisor restarts
// it, as a standby.
void ExitOnLostLeadership(const absl::Status& lost) {
  KV_LOG(ERROR) << "exiting: " << lost.message();
  std::_Exit(ExitCodeForStatus(lost));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Controller>> Controller::Create(
    v1::ControllerConfig config, Clock* clock, Executor* executor, prometheus::Registry* registry,
    HttpClient* http_client, Sleeper* sleeper,
    std::function<void(const absl::Status&)> on_lost_leadership) {
  KV_ASSIGN_OR_RETURN(AnalysisSettings analysis, AnalysisSettingsFromConfig(config.regression()));
  KV_ASSIGN_OR_RETURN(std::vector<WebhookTarget> webhooks, LoadWebhookTargets(config.webhooks()));
  if (!webhooks.empty() && http_client == nullptr) {
    return absl::FailedPreconditionError("webhooks are configured but there is no HTTP client");
  }
  // Made and locked before the store opens: a second controller on this data_dir stops here,
  // naming the first, instead of splitting the jobs between two processes.
  absl::StatusOr<FolderLock> lock = FolderLock::Acquire(config.data_dir(), "kv-controller");
  if (!lock.ok()) {
    return absl::Status(lock.status().code(), absl::StrCat("data_dir ", lock.status().message()));
  }
  // The job store holds every spec and result: its folder is this user's alone.
  KV_RETURN_IF_ERROR(MakeFolderPrivate(config.data_dir()));
  KV_ASSIGN_OR_RETURN(std::unique_ptr<SqlStore> store, OpenStore(config));
  std::unique_ptr<ControllerLease> lease;
  if (Leadership* leadership = store->leadership(); leadership != nullptr) {
    if (sleeper == nullptr) {
      return absl::FailedPreconditionError("a shared store needs a sleeper to wait for its lease");
    }
    // A standby serves from the start: reads from the store, and everything else refused naming
    // the leader, so clients and agents given every controller's address find the leader.
    LeaderView leader;
    KV_ASSIGN_OR_RETURN(std::unique_ptr<GrpcServerService> standby,
                        GrpcServerService::StartStandby(config, store.get(), clock, &leader));
    // The leader's server takes over the standby's address, the port it was given included.
    config.set_listen_address(standby->address());
    KV_LOG(INFO) << "standby serving reads listen=" << standby->address();
    KV_ASSIGN_OR_RETURN(
        lease, ControllerLease::Acquire(leadership, LeaseOptions(config), sleeper, &leader));
    standby->Shutdown(kStandbyShutdownGrace);
  }
  if (!on_lost_leadership) on_lost_leadership = ExitOnLostLeadership;
  JobManagerOptions options;
  options.heartbeat_timeout =
      absl::Seconds(config.heartbeat_timeout_s() > 0 ? config.heartbeat_timeout_s()
                                                     : kDefaultHeartbeatTimeoutSeconds);
  options.heartbeat_interval = HeartbeatInterval(options.heartbeat_timeout);
  options.assignment_timeout =
      absl::Seconds(config.assignment_timeout_s() > 0 ? config.assignment_timeout_s()
                                                      : kDefaultAssignmentTimeoutSeconds);
  options.event_silence_timeout =
      absl::Seconds(config.event_silence_timeout_s() > 0 ? config.event_silence_timeout_s()
                                                         : kDefaultEventSilenceTimeoutSeconds);
  options.max_scenario_attempts = config.max_scenario_attempts() > 0
                                      ? config.max_scenario_attempts()
                                      : kDefaultMaxScenarioAttempts;
  KV_ASSIGN_OR_RETURN(std::unique_ptr<JobManager> manager,
                      JobManager::Create(store.get(), clock, executor, options));
  RegisterDaemonInfoMetrics(registry, "controller", clock->Now());
  return std::unique_ptr<Controller>(
      new Controller(std::move(config), clock, executor, registry, *std::move(lock),
                     std::move(store), std::move(lease), std::move(on_lost_leadership),
                     std::move(manager), std::move(analysis), std::move(webhooks), http_client));
}

Controller::Controller(v1::ControllerConfig config, Clock* clock, Executor* executor,
                       prometheus::Registry* registry, FolderLock data_dir_lock,
                       std::unique_ptr<SqlStore> store, std::unique_ptr<ControllerLease> lease,
                       std::function<void(const absl::Status&)> on_lost_leadership,
                       std::unique_ptr<JobManager> manager, AnalysisSettings analysis,
                       std::vector<WebhookTarget> webhooks, HttpClient* http_client)
    : config_(std::move(config)),
      clock_(clock),
      executor_(executor),
      start_monotonic_(clock->Monotonic()),
      uptime_seconds_(prometheus::BuildGauge()
                          .Name("kvbench_controller_uptime_seconds")
                          .Help("Seconds since the controller started")
                          .Register(*registry)
                          .Add({})),
      link_gauges_(prometheus::BuildGauge()
                       .Name("kvbench_controller_link")
                       .Help("Agent link counters: agents connected, heartbeats, events stored "
                             "and duplicates, agents' events refused by reason, assignments "
                             "timed out, scheduling rounds")
                       .Register(*registry)),
      data_dir_lock_(std::move(data_dir_lock)),
      store_(std::move(store)),
      lease_(std::move(lease)),
      on_lost_leadership_(std::move(on_lost_leadership)),
      manager_(std::move(manager)),
      manager_jobs_(manager_.get()),
      schedules_(std::make_unique<ScheduleFirer>(&store_->Schedules(), &manager_jobs_, clock)),
      regression_gauges_(registry),
      regression_queries_(&store_->Regressions(), &store_->Schedules(), manager_.get(), clock) {
  std::vector<std::string> webhook_names;
  for (const WebhookTarget& webhook : webhooks) webhook_names.push_back(webhook.name);
  if (!webhooks.empty()) {
    alerts_ = std::make_unique<AlertDispatcher>(std::move(webhooks), &store_->Regressions(),
                                                http_client, clock);
    regression_queries_.SetWebhooks(webhook_names, [this] { alerts_->Wake(); });
  }
  analyst_ = std::make_unique<RegressionAnalyst>(
      std::move(analysis), std::move(webhook_names), &store_->Events(), &store_->Schedules(),
      &store_->Regressions(), manager_.get(), clock, executor,
      [this](const v1::RunAnalysis& run, bool fresh) { OnAnalyzed(run, fresh); });
}

Controller::~Controller() {
  if (shutdown_thread_.joinable()) shutdown_thread_.join();
  if (server_ != nullptr) server_->Shutdown(absl::ZeroDuration());
}

absl::Status Controller::Start() {
  KV_RETURN_IF_ERROR(schedules_->Load());
  KV_ASSIGN_OR_RETURN(server_, GrpcServerService::Start(config_, manager_.get(), schedules_.get(),
                                                        executor_, &regression_queries_));
  if (lease_ != nullptr)
    lease_->StartRenewing(executor_, clock_, server_->address(), on_lost_leadership_);
  // The config holds only token hashes, never tokens, so logging it whole is safe.
  KV_LOG(INFO) << "controller started listen=" << server_->address()
               << " data_dir=" << config_.data_dir() << " config=" << ProtoToJson(config_);
  if (config_.insecure()) {
    KV_LOG(WARNING) << "insecure mode: no TLS, no client certificates and no bearer tokens; use "
                       "only on a trusted host";
  }
  Housekeeping();
  housekeeping_task_ = executor_->RunEvery("controller.housekeeping", kHousekeepingPeriod,
                                           [this] { Housekeeping(); });
  // Fire times passed while the controller was down are handled now, not a period later.
  // Ended scheduled runs are analyzed within a tick of ending (RegressionAnalyst::Scan).
  executor_->Post("controller.schedules", [this] {
    schedules_->Tick();
    analyst_->Scan();
  });
  schedule_task_ = executor_->RunEvery("controller.schedules", kScheduleTickPeriod, [this] {
    schedules_->Tick();
    analyst_->Scan();
  });
  return absl::OkStatus();
}

void Controller::Shutdown(std::function<void()> done) {
  if (!housekeeping_task_.valid()) {
    if (done) executor_->Post("controller.stopped", std::move(done));
    return;
  }
  executor_->Cancel(housekeeping_task_);
  housekeeping_task_ = TaskId{};
  executor_->Cancel(schedule_task_);
  schedule_task_ = TaskId{};
  if (lease_ != nullptr) lease_->StopRenewing();
  manager_->Shutdown();
  GrpcServerService* server = server_.get();
  Executor* executor = executor_;
  RegressionAnalyst* analyst = analyst_.get();
  AlertDispatcher* alerts = alerts_.get();
  ControllerLease* lease = lease_.get();
  shutdown_thread_ =
      std::thread([server, executor, analyst, alerts, lease, done = std::move(done)]() mutable {
        // The analysis and the delivery in flight finish (a delivery within its webhook's timeout);
        // what is queued stays in the store for the next start.
        analyst->Stop();
        if (alerts != nullptr) alerts->Stop();
        if (server != nullptr) server->Shutdown(kShutdownGrace);
        // A standby takes over at once rather than a lease later.
        if (lease != nullptr) lease->StepDown();
        KV_LOG(INFO) << "controller stopped";
        if (done) executor->Post("controller.stopped", std::move(done));
      });
}

void Controller::PruneRequests() {
  const double days = config_.request_retention_days();
  if (days <= 0 || clock_->Monotonic() - last_prune_ < kRequestPrunePeriod) return;
  last_prune_ = clock_->Monotonic();
  absl::StatusOr<int64_t> pruned = manager_->PruneRequests(clock_->Now() - absl::Hours(24 * days));
  if (!pruned.ok()) {
    KV_LOG(ERROR) << "cannot prune request records: " << pruned.status();
  } else if (*pruned > 0) {
    KV_LOG(INFO) << "request records pruned chunks=" << *pruned << " retention_days=" << days;
  }
}

void Controller::OnAnalyzed(const v1::RunAnalysis& analysis, bool fresh) {
  absl::StatusOr<v1::Job> job = manager_->GetJob(analysis.job_id());
  if (job.ok()) regression_gauges_.SetLatestRun(analysis.schedule(), *job, analysis);
  if (!fresh) return;
  KV_LOG(INFO) << "scheduled run analyzed schedule=" << analysis.schedule()
               << " job=" << analysis.job_id() << " baseline=" << analysis.baseline_kind()
               << " baseline_jobs=" << analysis.baseline_jobs_size()
               << " change_points=" << analysis.new_change_points_size()
               << " alerts=" << analysis.alerts_size();
  for (const v1::RegressionAlert& alert : analysis.alerts()) {
    KV_LOG(WARNING) << "regression " << AlertSummary(alert);
    manager_->RecordAlert(alert);
  }
  if (alerts_ != nullptr && analysis.alerts_size() > 0) alerts_->Wake();
}

void Controller::Housekeeping() {
  uptime_seconds_.Set(absl::ToDoubleSeconds(clock_->Monotonic() - start_monotonic_));
  PruneRequests();
  absl::StatusOr<std::map<v1::DeliveryState, int64_t>> deliveries =
      store_->Regressions().CountDeliveries();
  if (deliveries.ok()) regression_gauges_.SetDeliveryCounts(*deliveries);
  std::set<std::string> schedules;
  for (const v1::Schedule& schedule : schedules_->List()) schedules.insert(schedule.spec().name());
  regression_gauges_.RetainSchedules(schedules);
  const JobManager::Stats& stats = manager_->stats();
  link_gauges_.Add({{"counter", "agents_connected"}}).Set(stats.agents_connected);
  link_gauges_.Add({{"counter", "heartbeats"}}).Set(stats.heartbeats);
  link_gauges_.Add({{"counter", "events_stored"}}).Set(stats.events_stored);
  link_gauges_.Add({{"counter", "events_duplicate"}}).Set(stats.events_duplicate);
  link_gauges_.Add({{"counter", "events_stale"}}).Set(stats.events_stale);
  link_gauges_.Add({{"counter", "scheduling_rounds"}}).Set(stats.scheduling_rounds);
  link_gauges_.Add({{"counter", "refused_unknown_job"}}).Set(stats.refused_unknown_job);
  link_gauges_.Add({{"counter", "refused_not_owner"}}).Set(stats.refused_not_owner);
  link_gauges_.Add({{"counter", "refused_controller_only"}}).Set(stats.refused_controller_only);
  link_gauges_.Add({{"counter", "refused_bad_seq"}}).Set(stats.refused_bad_seq);
  link_gauges_.Add({{"counter", "assignments_timed_out"}}).Set(stats.assignments_timed_out);
  link_gauges_.Add({{"counter", "attempts_silent"}}).Set(stats.attempts_silent);
  // TLS handshakes gRPC refused before any service saw them, by cause.
  const std::array<int64_t, kTlsRefusalKinds> refused = TlsRefusalCounts();
  for (int i = 1; i < kTlsRefusalKinds; ++i) {
    const auto refusal = static_cast<TlsRefusal>(i);
    link_gauges_.Add({{"counter", absl::StrCat("tls_refused_", TlsRefusalName(refusal))}})
        .Set(static_cast<double>(refused[i]));
  }
}

}  // namespace kvbench::controller
