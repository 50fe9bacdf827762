// kv-agent: the per-node daemon. Loads and validates its config, serves its own /metrics, runs
// until SIGTERM/SIGINT; `--preflight` checks the node instead and exits. See docs/kv-agent.md.

#include <unistd.h>

#include <iostream>

#include "agent/agent.h"
#include "agent/config/agent_config_validator.h"
#include "agent/preflight/posix_preflight_probes.h"
#include "agent/preflight/preflight_printer.h"
#include "common/cli/command_line.h"
#include "common/daemon/daemon_flags.h"
#include "common/daemon/private_files.h"
#include "common/grpc/grpc_core_log.h"
#include "common/json/proto_json.h"
#include "common/log/logging.h"
#include "common/loop/event_loop.h"
#include "common/metrics/loop_metrics_collector.h"
#include "common/metrics/metrics_server.h"
#include "common/status/exit_code.h"
#include "common/time/clock.h"
#include "common/time/sleeper.h"
#include "common/version/version.h"

namespace {

std::string Hostname() {
  char name[256] = {};
  return ::gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : "localhost";
}

int Fail(const absl::Status& status) {
  std::cerr << "kv-agent: " << status.message() << "\n";
  return kvbench::ExitCodeForStatus(status);
}

// kv-agent --preflight: the checks a start runs (and the address it will listen on), printed;
// exit 0 when none FAILs, 5 when one does.
int RunPreflight(const kvbench::v1::AgentConfig& config, const std::string& config_path) {
  using namespace kvbench;
  absl::StatusOr<agent::tiers::ProfileSet> profiles = agent::Agent::LoadProfiles(config);
  if (!profiles.ok()) return Fail(profiles.status());
  absl::StatusOr<std::unique_ptr<agent::preflight::PosixPreflightProbes>> probes =
      agent::preflight::PosixPreflightProbes::Create();
  if (!probes.ok()) return Fail(probes.status());
  agent::preflight::PreflightInput input = agent::preflight::PreflightInput::ForAgentConfig(config);
  input.listen_address =
      config.metrics_listen().empty() ? agent::kDefaultMetricsListen : config.metrics_listen();
  const agent::preflight::PreflightReport report =
      agent::preflight::Preflight(std::move(input), &*profiles, probes->get()).RunAll();
  std::cout << "kv-agent " << kVersion << " preflight on " << Hostname() << " (agent "
            << config.agent_id() << ", config " << config_path << ")\n";
  agent::preflight::PrintPreflight(report, std::cout);
  const absl::Status outcome = agent::preflight::PreflightOutcome(report);
  return outcome.ok() ? kExitOk : Fail(outcome);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kvbench;
  CLI::App app{"kv-agent: runs kvbench scenarios on this node"};
  app.set_version_flag("--version", std::string(kVersion) + " (" + kGitRevision + ")");
  DaemonFlags flags;
  AddDaemonFlags(&app, &flags);
  bool preflight = false;
  app.add_flag("--preflight", preflight,
               "Check this node (programs and versions, GPUs, the NVMe dir, ports, model roots, "
               "datasets) without starting; exit 5 when a check FAILs");
  if (int code = ParseCommandLine(&app, argc, argv); code >= 0) return code;
  // The preflight's table is its output: the probes' log lines only when asked for.
  if (preflight && app.count("--log_level") == 0) flags.log_level = "warning";
  if (absl::Status status = ApplyLogLevel(flags); !status.ok()) return Fail(status);

  absl::StatusOr<v1::AgentConfig> config = agent::LoadAgentConfig(flags.config_path, Hostname());
  if (!config.ok()) return Fail(config.status());
  if (flags.validate_config) {
    // What a start would refuse is refused here too, a profiles_dir that does not exist included:
    // a config that passes --validate_config starts.
    if (absl::StatusOr<agent::tiers::ProfileSet> profiles = agent::Agent::LoadProfiles(*config);
        !profiles.ok()) {
      return Fail(profiles.status());
    }
    std::cout << ProtoToJson(*config, /*pretty=*/true) << "\n";
    return kExitOk;
  }
  if (preflight) return RunPreflight(*config, flags.config_path);

  MakeNewFilesPrivate();  // the spool, logs and request records are this user's alone
  RouteGrpcCoreLogs(GrpcRole::kClient);  // gRPC core's lines in kvbench's format
  RealClock clock;
  RealSleeper sleeper;
  EventLoop loop("agent");
  std::string metrics_listen =
      config->metrics_listen().empty() ? agent::kDefaultMetricsListen : config->metrics_listen();
  absl::StatusOr<std::unique_ptr<MetricsServer>> metrics = MetricsServer::Create(metrics_listen);
  if (!metrics.ok()) return Fail(metrics.status());
  auto loop_metrics = std::make_shared<LoopMetricsCollector>("agent", &loop);
  (*metrics)->RegisterCollectable(loop_metrics);

  // Signals are handled before the agent says it is up: a SIGTERM right after its "metrics url"
  // line still shuts it down in order.
  std::unique_ptr<agent::Agent> running;
  StopOnTerminate(&loop, [&running](int) {
    if (running != nullptr) running->Shutdown();
  });
  agent::AgentSeams seams;  // the real preflight probes are the agent's own
  seams.clock = &clock;
  seams.sleeper = &sleeper;
  seams.executor = &loop;
  seams.registry = &(*metrics)->registry();
  absl::StatusOr<std::unique_ptr<agent::Agent>> agent =
      agent::Agent::Create(*config, std::move(seams));
  if (!agent.ok()) return Fail(agent.status());
  running = *std::move(agent);
  KV_LOG(INFO) << "metrics url=" << (*metrics)->url();
  running->Start();
  loop.Run();
  return kExitOk;
}
