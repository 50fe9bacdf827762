#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/datasets/dataset_resolver.h"
#include "agent/datasets/registry/dataset_provisioner.h"
#include "agent/release/release_cache.h"
#include "agent/sampler/sampler.h"
#include "agent/sampler/telemetry_sampler.h"
#include "agent/scenario/cache_server_endpoints.h"
#include "agent/scenario/program_resolver.h"
#include "agent/scenario/replay_progress.h"
#include "agent/scenario/replay_watchdog.h"
#include "agent/supervisor/supervisor.h"
#include "agent/tiers/profile_set.h"
#include "agent/tiers/tier_renderer.h"
#include "common/http/http_client.h"
#include "common/net/port_allocator.h"
#include "common/process/process_launcher.h"
#include "common/time/clock.h"
#include "common/time/sleeper.h"
#include "kvbench/v1/event.pb.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::agent {

// Deadlines of the steps that have no profile-given one.
inline constexpr absl::Duration kDefaultEngineReadyTimeout = absl::Seconds(600);
inline constexpr absl::Duration kDefaultCacheReadyTimeout = absl::Seconds(120);
inline constexpr absl::Duration kProxyReadyTimeout = absl::Seconds(30);
// How often the replay step reports progress and checks the children.
inline constexpr absl::Duration kReplayPollPeriod = absl::Milliseconds(200);
// How often the replay step looks for kv-runner's ready file (the warm-up gate).
inline constexpr absl::Duration kGatePollPeriod = absl::Milliseconds(10);

// What a scenario run borrows from its agent (or from `kvctl run`). All must outlive the run.
struct ScenarioEnvironment {
  ProcessLauncher* launcher = nullptr;
  HttpClient* http = nullptr;
  Clock* clock = nullptr;
  Sleeper* sleeper = nullptr;  // start-up polling waits through it (time from `clock`)
  PortAllocator* ports = nullptr;
  const tiers::ProfileSet* profiles = nullptr;
  const ProgramResolver* programs = nullptr;
  const datasets::DatasetResolver* datasets = nullptr;
  // Pulls and verifies a registry dataset into the cache before it is resolved; null = none
  // (kvctl run, which reads the user's files and mirrors in place).
  const datasets::DatasetProvisioner* dataset_provisioner = nullptr;
  std::string scenario_dir;  // requests.jsonl, summary.json, result.json, Caddyfile, logs/
  std::string run_dir;       // pid files of the children
  // A job whose model is an absolute path runs only when it is under one of these: a job may not
  // make an agent load whatever file it names.
  std::vector<std::string> model_roots;
  std::string nvme_cache_dir;  // NVME scenarios: their L2 pool goes in a subfolder, wiped
  std::vector<int> gpus;       // GPU indices this node offers (empty: simulators only)
  // The releases of the node's programs, probed once per agent; null = not probed.
  release::ReleaseCache* releases = nullptr;
  absl::Duration stop_grace = absl::Seconds(30);
};

// Scenario events as they happen: state changes, progress (phase, sessions/requests done), log
// lines and the result. Without seq/agent_id/unix_ms: the caller numbers and stamps them.
using ScenarioEventSink = std::function<void(v1::Event event)>;

// Runs one scenario (DESIGN.md "The flow of one job", step 3) as a state machine, each step with
// a deadline and a clear error: resolving (profiles, programs, dataset, ports, NVMe dir wiped) →
// starting_cache_server (CPU_RAM/NVME: the one cache server, /healthcheck or /api/healthcheck,
// then where its /metrics is: the HTTP port or --prometheus-port) → starting_replicas
// (each /health) → starting_proxy (replicas >= 2: Caddy, admin /config/) → warmup and
// replay (kv-runner as a child against Caddy or the single replica, the sampler scraping every
// replica and the cache server before, every period during, and after it) → collecting
// (requests.jsonl and the samples → ScenarioResult, result.json) → teardown (every process group
// stopped, NVMe dir wiped), on every path. A child that dies during start-up fails the scenario
// with its exit status and log tail; a replica that dies during the replay is reported
// (result.process_failures) and the run goes on. The replay is bounded (ReplayWatchdog): the
// cache server dying fails it at once, and so does no request completing for the spec's
// progress_timeout_s (0: unbounded), naming the stalled processes; kv-runner then gets SIGTERM
// and, past the stop grace, SIGKILL. Blocking: run it on a thread of its own; Cancel from any
// thread.
class ScenarioDriver {
 public:
  ScenarioDriver(const ScenarioEnvironment& env, v1::JobSpec job, v1::Scenario scenario,
                 ScenarioEventSink sink);
  ~ScenarioDriver();

  // The result, or the failure: FAILED_PRECONDITION / DEADLINE_EXCEEDED / NOT_FOUND naming the
  // step and the process, CANCELLED after Cancel. Always after teardown.
  absl::StatusOr<v1::ScenarioResult> Run();
  // Thread-safe: the current step stops waiting (the runner gets SIGTERM and still writes its
  // output), then teardown.
  void Cancel();

 private:
  struct Plan;

  absl::StatusOr<Plan> Resolve();
  absl::Status StartCacheServer(const Plan& plan);
  absl::Status StartReplicas(const Plan& plan);
  absl::Status StartProxy(const Plan& plan);
  absl::Status RunReplay(const Plan& plan);
  // Sends requests.jsonl as RequestRecords events (a warning, and nothing sent, if unreadable).
  void SendRequestRecords();
  absl::StatusOr<v1::ScenarioResult> Collect(const Plan& plan);
  // ResultWarnings: cache server metrics never scraped; NVME reads not from the disk.
  void AddWarnings(const Plan& plan, v1::ScenarioResult* result);
  void Teardown(const Plan* plan);
  // A progress event; `replay` (during the replay) gives the requests and sessions done.
  // Sends the phase with the replay's counts (from `replay` when given, else as last seen) and,
  // during the replay, its ETA.
  void Phase(v1::ScenarioPhase phase, const ReplayProgress* replay = nullptr,
             std::optional<double> replay_elapsed_s = std::nullopt);
  void Log(v1::LogLine::Severity severity, const std::string& process, const std::string& text);
  // Every event of the scenario goes through here (noting when it went).
  void Send(v1::Event event);
  // The phase again, as a progress event, when nothing was sent for kScenarioKeepalivePeriod:
  // the controller times out a running attempt whose events stop (event_silence_timeout_s), and a
  // replica loading its weights or a long warm-up sends nothing else. Called from every wait.
  void Keepalive();
  // Logs and records the children that exited since the last call; returns them.
  std::vector<std::string> ReportExitedChildren(const char* when);
  // Every child of the scenario now, with kv-runner's `runner`.
  std::vector<WatchedProcess> Processes(const Process& runner) const;
  std::unique_ptr<sampler::Sampler> MakeSampler(const Plan& plan);
  // Follows the supervised processes and kv-runner (`runner_pid`): its CPU share says whether
  // the client itself was short of a core.
  std::unique_ptr<sampler::TelemetrySampler> MakeTelemetrySampler(const Plan& plan, int runner_pid);
  void Scrape(const char* kind, double t_s);
  std::string ScenarioFile(const std::string& name) const;

  ScenarioEnvironment env_;
  v1::JobSpec job_;
  v1::Scenario scenario_;
  ScenarioEventSink sink_;
  // When Send last sent (monotonic, ns): the sampler's callback sends from the driver's thread
  // too, but an atomic costs nothing and keeps that an assumption of no one.
  std::atomic<int64_t> last_sent_ns_{0};
  std::atomic<bool> cancelled_{false};  // raised by Cancel()
  std::unique_ptr<Supervisor> supervisor_;
  std::unique_ptr<sampler::Sampler> sampler_;             // during and after the replay
  std::unique_ptr<sampler::TelemetrySampler> telemetry_;  // on the sampler's ticks
  std::vector<std::string> process_failures_;
  // The cache server's flags its release lacks, left out of its command (it would
  // exit on a flag it does not know).
  std::vector<std::string> dropped_cache_flags_;
  // The cache server's /metrics (found after readiness), and what answered when none did.
  CacheServerMetrics cache_metrics_;
  v1::ScenarioPhase phase_ = v1::SCENARIO_PHASE_UNSPECIFIED;
  v1::Progress replay_counts_;  // the replay's counts as last seen (Phase)
  absl::Duration started_;
  int64_t start_unix_ms_ = 0;  // Run()'s start on the wall clock
  // The warm-up gate's opening on the wall clock: t_s = 0 of the series and samples.jsonl.
  int64_t replay_start_unix_ms_ = 0;
};

}  // namespace kvbench::agent
