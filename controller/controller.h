#pragma once

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "common/daemon/folder_lock.h"
#include "common/http/http_client.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "common/time/sleeper.h"
#include "controller/alerts/alert_dispatcher.h"
#include "controller/analysis/regression_analyst.h"
#include "controller/analysis/regression_gauges.h"
#include "controller/analysis/regression_queries.h"
#include "controller/core/job_manager.h"
#include "controller/lease/controller_lease.h"
#include "controller/schedule/schedule_firer.h"
#include "controller/schedule/scheduled_jobs.h"
#include "controller/service/grpc_server_service.h"
#include "controller/store/sql_store.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::controller {

// The store's file under the data dir.
inline constexpr char kStoreFileName[] = "controller.db";
// The leader lease of a shared store when the config does not say.
inline constexpr double kDefaultLeaseSeconds = 10;

// The control plane's owner: the store (SQLite under the data dir, or a PostgreSQL database it
// shares with standby controllers under a leader lease), the job manager (jobs,
// agents, scheduling), the schedules (fired every second on the loop), the judgement of scheduled
// runs (RegressionAnalyst, on a worker thread) with its alerts' delivery (AlertDispatcher, on
// another) and the gRPC server (Controller + AgentLink + health + reflection). Mutable state is
// touched on the executor's thread only.
//
// Members are declared in dependency order; Shutdown() undoes Start() in reverse.
class Controller {
 public:
  // `clock`, `executor`, `registry` and `http_client` are borrowed and must outlive the
  // Controller. `config` must be validated and completed (LoadControllerConfig). `http_client`
  // delivers regression alerts to the config's webhooks (may be null when there are none).
  // FAILED_PRECONDITION when the data dir cannot be created; the store's error when its file
  // cannot be opened; INVALID_ARGUMENT / NOT_FOUND for bad regression settings or webhooks.
  //
  // With a store shared by several controllers (PostgreSQL), Create waits as a standby until this
  // one leads (ControllerLease, polling with `sleeper`, which must then be given), before the job
  // manager reads the store; the lease is renewed from Start on, and `on_lost_leadership` runs
  // on the loop if another controller took it over (default: log and exit 5 at once: the fence
  // has kept this one from writing since).
  static absl::StatusOr<std::unique_ptr<Controller>> Create(
      v1::ControllerConfig config, Clock* clock, Executor* executor, prometheus::Registry* registry,
      HttpClient* http_client = nullptr, Sleeper* sleeper = nullptr,
      std::function<void(const absl::Status&)> on_lost_leadership = nullptr);
  ~Controller();

  // Starts serving; UNAVAILABLE when the listen address cannot be bound.
  absl::Status Start();
  // Stops accepting and ends every stream on a thread of its own (answers still queued on the
  // loop are delivered meanwhile), then runs `done` on the loop. Idempotent.
  void Shutdown(std::function<void()> done);

  const v1::ControllerConfig& config() const { return config_; }
  // host:port the gRPC server listens on (the port chosen when the config said 0).
  std::string address() const { return server_ == nullptr ? "" : server_->address(); }
  JobManager& jobs() { return *manager_; }
  ScheduleFirer& schedules() { return *schedules_; }

 private:
  static constexpr absl::Duration kHousekeepingPeriod = absl::Seconds(5);
  static constexpr absl::Duration kShutdownGrace = absl::Seconds(2);
  // How often request records past their retention are deleted.
  static constexpr absl::Duration kRequestPrunePeriod = absl::Hours(1);
  // How often due schedules are fired: a fire is at most this late.
  static constexpr absl::Duration kScheduleTickPeriod = absl::Seconds(1);

  // The job side of schedules: the JobManager.
  class ManagerJobs : public ScheduledJobs {
   public:
    explicit ManagerJobs(JobManager* manager) : manager_(manager) {}
    absl::StatusOr<v1::SubmitJobResponse> SubmitJob(const v1::SubmitJobRequest& request) override {
      return manager_->SubmitJob(request);
    }
    absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request) override {
      return manager_->ListJobs(request);
    }
    absl::StatusOr<v1::Job> CancelJob(const v1::CancelJobRequest& request) override {
      return manager_->CancelJob(request);
    }

   private:
    JobManager* const manager_;
  };

  Controller(v1::ControllerConfig config, Clock* clock, Executor* executor,
             prometheus::Registry* registry, FolderLock data_dir_lock,
             std::unique_ptr<SqlStore> store, std::unique_ptr<ControllerLease> lease,
             std::function<void(const absl::Status&)> on_lost_leadership,
             std::unique_ptr<JobManager> manager, AnalysisSettings analysis,
             std::vector<WebhookTarget> webhooks, HttpClient* http_client);
  void Housekeeping();
  // A scheduled run's analysis was stored (`fresh`) or found at start: /metrics, and for a fresh
  // one its alerts in the log, the job's events and the webhooks' queue.
  void OnAnalyzed(const v1::RunAnalysis& analysis, bool fresh);
  // Deletes request records older than request_retention_days (at most once per period).
  void PruneRequests();

  const v1::ControllerConfig config_;
  Clock* const clock_;
  Executor* const executor_;
  const absl::Duration start_monotonic_;
  prometheus::Gauge& uptime_seconds_;
  prometheus::Family<prometheus::Gauge>& link_gauges_;
  FolderLock data_dir_lock_;  // one controller per data_dir, for as long as this one lives
  std::unique_ptr<SqlStore> store_;
  std::unique_ptr<ControllerLease> lease_;  // null on SQLite (one controller per file)
  std::function<void(const absl::Status&)> on_lost_leadership_;
  std::unique_ptr<JobManager> manager_;
  ManagerJobs manager_jobs_;
  std::unique_ptr<ScheduleFirer> schedules_;
  RegressionGauges regression_gauges_;
  std::unique_ptr<AlertDispatcher> alerts_;  // null without webhooks
  std::unique_ptr<RegressionAnalyst> analyst_;
  RegressionQueries regression_queries_;
  std::unique_ptr<GrpcServerService> server_;
  TaskId housekeeping_task_;
  TaskId schedule_task_;
  absl::Duration last_prune_ = -absl::InfiniteDuration();  // monotonic
  std::thread shutdown_thread_;
};

}  // namespace kvbench::controller
