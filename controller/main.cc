// kv-controller: the control plane daemon. Loads and validates its config, serves its own
// /metrics, runs until SIGTERM/SIGINT. See docs/kv-controller.md.

#include <csignal>
#include <iostream>

#include "common/cli/command_line.h"
#include "common/daemon/daemon_flags.h"
#include "common/daemon/private_files.h"
#include "common/grpc/grpc_core_log.h"
#include "common/http/curl_http_client.h"
#include "common/json/proto_json.h"
#include "common/log/logging.h"
#include "common/loop/event_loop.h"
#include "common/metrics/loop_metrics_collector.h"
#include "common/metrics/metrics_server.h"
#include "common/status/exit_code.h"
#include "common/time/clock.h"
#include "common/time/sleeper.h"
#include "common/version/version.h"
#include "controller/config/controller_config_validator.h"
#include "controller/controller.h"

namespace {

// Our own /metrics when the config does not say.
constexpr char kDefaultMetricsListen[] = "127.0.0.1:9465";

int Fail(const absl::Status& status) {
  std::cerr << "kv-controller: " << status.message() << "\n";
  return kvbench::ExitCodeForStatus(status);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kvbench;
  CLI::App app{"kv-controller: schedules kvbench jobs across agents"};
  app.set_version_flag("--version", std::string(kVersion) + " (" + kGitRevision + ")");
  DaemonFlags flags;
  AddDaemonFlags(&app, &flags);
  if (int code = ParseCommandLine(&app, argc, argv); code >= 0) return code;
  if (absl::Status status = ApplyLogLevel(flags); !status.ok()) return Fail(status);

  absl::StatusOr<v1::ControllerConfig> config = controller::LoadControllerConfig(flags.config_path);
  if (!config.ok()) return Fail(config.status());
  if (flags.validate_config) {
    std::cout << ProtoToJson(*config, /*pretty=*/true) << "\n";
    return kExitOk;
  }

  MakeNewFilesPrivate();                 // controller.db and its WAL are this user's alone
  RouteGrpcCoreLogs(GrpcRole::kServer);  // refused TLS handshakes named
  RealClock clock;
  EventLoop loop("controller");
  std::string metrics_listen =
      config->metrics_listen().empty() ? kDefaultMetricsListen : config->metrics_listen();
  absl::StatusOr<std::unique_ptr<MetricsServer>> metrics = MetricsServer::Create(metrics_listen);
  if (!metrics.ok()) return Fail(metrics.status());
  auto loop_metrics = std::make_shared<LoopMetricsCollector>("controller", &loop);
  (*metrics)->RegisterCollectable(loop_metrics);

  // Regression alerts go to the config's webhooks through libcurl (controller/alerts).
  absl::StatusOr<std::unique_ptr<CurlHttpClient>> http_client = CurlHttpClient::Create();
  if (!http_client.ok()) return Fail(http_client.status());
  RealSleeper sleeper;  // a standby's wait for the lease of a shared store
  absl::StatusOr<std::unique_ptr<controller::Controller>> controller =
      controller::Controller::Create(*config, &clock, &loop, &(*metrics)->registry(),
                                     http_client->get(), &sleeper);
  if (!controller.ok()) return Fail(controller.status());
  KV_LOG(INFO) << "metrics url=" << (*metrics)->url();
  if (absl::Status started = (*controller)->Start(); !started.ok()) return Fail(started);
  // On SIGTERM/SIGINT the gRPC server drains on its own thread while the loop keeps answering.
  loop.OnSignals({SIGTERM, SIGINT}, [&](int signal) {
    KV_LOG(INFO) << "shutting down signal=" << signal;
    (*controller)->Shutdown([&loop] { loop.Stop(); });
  });
  loop.Run();
  return kExitOk;
}
