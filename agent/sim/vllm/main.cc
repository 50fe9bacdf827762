// kvsim-vllm: a drop-in simulator of `vllm serve` (see docs/kvsim-vllm.md). Same flags (the
// subset kvbench uses), same HTTP API, SSE stream and /metrics; a simulated engine behind them.

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/sim/engine/sim_engine.h"
#include "agent/sim/lmcache/lmcache_client.h"
#include "agent/sim/lmcache/lmcache_connector_config.h"
#include "agent/sim/vllm/kv_connector_factory.h"
#include "agent/sim/vllm/usage_stats.h"
#include "agent/sim/vllm/vllm_api_server.h"
#include "agent/sim/vllm/vllm_flags.h"
#include "agent/sim/vllm/vllm_metrics.h"
#include "agent/sim/vllm/vllm_stdout_log.h"
#include "common/daemon/daemon_flags.h"
#include "common/log/logging.h"
#include "common/loop/event_loop.h"
#include "common/status/status_macros.h"

namespace {

using namespace kvbench;
using namespace kvbench::sim;

// Connects the KV connector named by --kv-transfer-config, as vLLM's LMCacheMPConnector does at
// start: an unreachable cache server is fatal. First, as vLLM's KVConnectorFactory, it picks the
// class (--sim-connector-lookup; an empty kv_connector_module_path is FAILED_PRECONDITION under
// module-path-first) and logs that it creates it, once.
absl::StatusOr<std::unique_ptr<ExternalKvCache>> ConnectKvTransfer(
    const VllmServeOptions& options) {
  if (options.kv_transfer_config.empty()) return std::unique_ptr<ExternalKvCache>();
  KV_ASSIGN_OR_RETURN(lmcache::LmcacheConnectorConfig connector,
                      lmcache::ParseKvTransferConfig(options.kv_transfer_config));
  KV_ASSIGN_OR_RETURN(KvConnectorChoice choice,
                      ChooseKvConnector(options.kv_transfer_config, options.sim_connector_lookup));
  if (choice.engine_id.empty()) choice.engine_id = RandomUuid4();
  LogInfoToStdout(ConnectorCreationMessage(choice.class_name, choice.engine_id));
  KV_ASSIGN_OR_RETURN(
      std::unique_ptr<lmcache::LmcacheClient> client,
      lmcache::LmcacheClient::Connect(connector.host, connector.port, connector.mq_timeout,
                                      options.primary_name()));
  return std::unique_ptr<ExternalKvCache>(std::move(client));
}

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<std::optional<std::string>> version = TopLevelVersionRequest(argc, argv);
  if (!version.ok()) {
    std::cerr << "usage: kvsim-vllm [-v] [--sim-vllm-version V]\nkvsim-vllm: error: "
              << version.status().message() << "\n";
    return 2;
  }
  if (version->has_value()) {
    std::cout << **version << "\n";
    return 0;
  }
  absl::StatusOr<VllmFlagsResult> flags = ParseVllmServeFlags(argc, argv);
  if (!flags.ok()) {
    std::cerr << "usage: kvsim-vllm serve MODEL [flags]\nkvsim-vllm serve: error: "
              << flags.status().message() << "\n";
    return 2;
  }
  if (flags->help) {
    std::cout << flags->help_text;
    return 0;
  }
  const VllmServeOptions& options = flags->options;
  if (options.sim_platform == "rocm") {
    absl::Status visible = CheckRocmVisibleDevices(std::getenv("HIP_VISIBLE_DEVICES"),
                                                   std::getenv("CUDA_VISIBLE_DEVICES"));
    if (!visible.ok()) {
      std::cerr << "ValueError: " << visible.message() << "\n";
      return 1;
    }
  }
  // Usage stats, as vLLM reports them unless they are turned off (usage_stats.h).
  if (const UsageStats usage = UsageStatsOf(std::getenv); usage.enabled) {
    KV_LOG(WARNING) << "usage stats on (VLLM_NO_USAGE_STATS=1 or DO_NOT_TRACK=1 turns them off): "
                       "recorded in "
                    << usage.json_path;
    if (absl::Status written = WriteUsageRecord(usage.json_path, options.model); !written.ok()) {
      KV_LOG(WARNING) << written.message();
    }
  }
  EngineConfig config = MakeEngineConfig(options);
  KV_LOG(INFO) << "kvsim-vllm model=" << options.model << " served_as=" << options.primary_name()
               << " num_gpu_blocks=" << config.num_gpu_blocks << " block_size=" << config.block_size
               << " kv_bytes_per_token=" << config.model.KvBytesPerToken()
               << " hybrid_kv_cache_manager=" << (config.hybrid_kv_cache_manager ? "on" : "off")
               << " time_scale=" << config.time_scale;

  if (absl::Status hybrid = HybridSsmStartupError(options, config.model); !hybrid.ok()) {
    std::cerr << "ValueError: " << hybrid.message() << "\n";
    return 1;
  }

  absl::StatusOr<std::unique_ptr<ExternalKvCache>> external = ConnectKvTransfer(options);
  if (!external.ok()) {
    if (external.status().code() == absl::StatusCode::kFailedPrecondition) {
      std::cerr << "ValueError: " << external.status().message() << "\n";
      return 1;
    }
    std::cerr << "kvsim-vllm: KV connector failed: " << external.status().message() << "\n";
    return external.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  VllmMetrics::Options metrics_options;
  metrics_options.model_name = options.primary_name();
  metrics_options.with_connector = *external != nullptr;
  metrics_options.omit_histograms = options.sim_omit_histograms;
  metrics_options.time_scale = options.sim_time_scale;
  metrics_options.gpu_memory_utilization = options.gpu_memory_utilization;
  VllmMetrics metrics(metrics_options, config);

  // The engine and the API server each map the scenario's clock (SimClock is a view of the file).
  std::unique_ptr<SimClock> engine_clock;
  std::unique_ptr<SimClock> server_clock;
  if (!options.sim_clock.empty()) {
    absl::StatusOr<std::unique_ptr<SimClock>> opened = SimClock::Open(options.sim_clock);
    absl::StatusOr<std::unique_ptr<SimClock>> opened_again = SimClock::Open(options.sim_clock);
    if (!opened.ok() || !opened_again.ok()) {
      std::cerr << "kvsim-vllm: --sim-clock: "
                << (opened.ok() ? opened_again.status() : opened.status()).message() << "\n";
      return 2;
    }
    engine_clock = std::move(*opened);
    server_clock = std::move(*opened_again);
  }
  absl::StatusOr<std::unique_ptr<SimEngine>> engine = SimEngine::Create(
      config, std::move(*external), &metrics, std::move(engine_clock), options.sim_clock_rank);
  if (!engine.ok()) {
    std::cerr << "kvsim-vllm: " << engine.status().message() << "\n";
    return 1;
  }
  (*engine)->Start();
  VllmApiServer server(options, engine->get(), &metrics, server_clock.get());

  EventLoop loop("kvsim-vllm");
  int exit_code = 0;
  // Like vLLM, the port opens only once the (simulated) model has loaded.
  KV_LOG(INFO) << "Loading the model (simulated " << options.sim_load_seconds
               << " s) before listening on http://" << options.host << ":" << options.port;
  loop.RunAfter("kvsim.load", absl::Seconds(options.sim_load_seconds * options.sim_time_scale),
                [&] {
                  absl::Status started = server.Start();
                  if (!started.ok()) {
                    std::cerr << "kvsim-vllm: " << started.message() << "\n";
                    exit_code = 1;
                    loop.Stop();
                    return;
                  }
                  KV_LOG(INFO) << "Starting vLLM API server on http://" << options.host << ":"
                               << server.port();
                });
  RunUntilTerminated(&loop, [](int) {});
  server.Stop();
  (*engine)->Stop();
  return exit_code;
}
