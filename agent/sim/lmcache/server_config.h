#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/sim/lmcache/chunk_store.h"
#include "agent/sim/lmcache/imitated_release.h"
#include "agent/sim/lmcache/l2_fs_adapter.h"

namespace kvbench::sim::lmcache {

// Defaults of `lmcache server` (reference/lmcache.md §2.2), then the simulator's own.
inline constexpr char kDefaultHost[] = "localhost";
inline constexpr int kDefaultPort = 5555;
inline constexpr char kDefaultHttpHost[] = "127.0.0.1";
inline constexpr int kDefaultHttpPort = 8080;
inline constexpr int kDefaultChunkSize = 256;
inline constexpr double kDefaultTriggerWatermark = 0.8;
inline constexpr double kDefaultEvictionRatio = 0.2;
inline constexpr int kDefaultMaxWorkers = 1;
inline constexpr double kDefaultMetricsSampleRate = 0.01;
// --prometheus-port: where builds that start their own Prometheus HTTP server serve /metrics
// (LMCache/LMCache:lmcache/v1/mp_observability/config.py@ec451313 and @0a353d63: default 9090).
inline constexpr int kDefaultPrometheusPort = 9090;
// Where upstream's HTTP frontend answers health checks: /healthcheck (reference/lmcache.md
// §2.5) or, in the http_apis layout, /api/healthcheck
// (lmcache/v1/multiprocess/http_apis/healthcheck_api.py@a890a36a).
inline constexpr char kDefaultHealthcheckPath[] = "/healthcheck";
// Real seconds per simulated second: the eviction loop ticks every 1 s x this.
inline constexpr double kDefaultTimeScale = 1.0;
// LMCache sizes pools in GB of 2^30 bytes (l1_size_gb * 1024**3; the fs L2 adapter's
// max_capacity_gb * 1024**3 too, LMCache/LMCache:lmcache/v1/distributed/l2_adapters/
// fs_l2_adapter.py, index copy 62239826796).
inline constexpr double kBytesPerGb = 1024.0 * 1024.0 * 1024.0;

// The command line of `kvsim-lmcache server`, as given.
struct ServerFlags {
  std::string host = kDefaultHost;
  int port = kDefaultPort;
  std::string http_host = kDefaultHttpHost;
  int http_port = kDefaultHttpPort;
  int chunk_size = kDefaultChunkSize;
  double l1_size_gb = 0;
  std::string eviction_policy;
  double eviction_trigger_watermark = kDefaultTriggerWatermark;
  double eviction_ratio = kDefaultEvictionRatio;
  std::vector<std::string> l2_adapters;  // JSON each; one is simulated
  int max_workers = kDefaultMaxWorkers;
  double metrics_sample_rate = kDefaultMetricsSampleRate;
  std::string transport = "zmq";
  double sim_time_scale = kDefaultTimeScale;
  double sim_l2_bytes_scale = kDefaultL2BytesScale;
  int64_t sim_l2_device_bytes = 0;
  uint64_t sim_seed = 0;
  int prometheus_port = kDefaultPrometheusPort;
  std::string sim_healthcheck_path = kDefaultHealthcheckPath;
  bool sim_metrics_on_prometheus_port = false;
  double sim_event_drop_rate = 0;
  bool sim_l1_evicted_keys_name = false;
  bool sim_l1_usage_histogram = true;
  std::string otlp_endpoint;
  std::string sim_clock;
  // The imitated release (imitated_release.h).
  std::string sim_lmcache_version = kDefaultLmcacheVersion;
  std::string sim_flag_set = kFlagSetCurrent;
  std::string sim_throughput_names = kThroughputNamesGbPerSecond;
  bool sim_otel_env = false;
  std::string sim_l2_config = kL2ConfigEviction;
  // Flags of the prometheus-config generation; only --disable-prometheus is simulated.
  bool disable_prometheus = false;
  // Not a flag: OTEL_EXPORTER_OTLP_ENDPOINT as main() found it (nullopt: unset), read only with
  // --sim-otel-env.
  std::optional<std::string> env_otlp_endpoint;
};

// Adds the flags of `lmcache server` that kvbench uses, with upstream's names and defaults, to
// the `server` subcommand, plus the simulator's --sim-time-scale, --sim-l2-bytes-scale,
// --sim-seed, --sim-clock and the upstream variants kvbench must survive: --sim-healthcheck-path,
// --sim-metrics-on-prometheus-port (the older HTTP layout), --sim-event-drop-rate,
// --sim-l1-evicted-keys-name, --[no-]sim-l1-usage-histogram, and the imitated release's
// --sim-lmcache-version, --sim-flag-set, --sim-throughput-names, --sim-otel-env and
// --sim-l2-config (release_flags.h). Accepted and ignored, so upstream command lines run
// unchanged: --l1-use-lazy / --no-l1-use-lazy, --l1-init-size-gb, --hash-algorithm.
// --transport takes only zmq. `flag_set` picks the observability flags (imitated_release.h):
// --metrics-sample-rate and --otlp-endpoint exist only in the current set.
void AddServerFlags(CLI::App* server, ServerFlags* flags, FlagSet flag_set = FlagSet::kCurrent);

// What the server runs with, validated.
struct ServerConfig {
  std::string zmq_endpoint;  // tcp://127.0.0.1:5555 ("*" as the port for --port 0)
  std::string http_host;
  int http_port = 0;
  std::string eviction_policy;  // LRU, ARC, IsolatedLRU (all simulated as LRU) or noop
  ChunkStoreOptions store;
  std::optional<L2FsOptions> l2;
  int max_workers = kDefaultMaxWorkers;
  double metrics_sample_rate = kDefaultMetricsSampleRate;
  double time_scale = kDefaultTimeScale;
  uint64_t seed = 0;
  std::string healthcheck_path = kDefaultHealthcheckPath;
  // >= 0: /metrics is served on this port only (0 picks one), not on the HTTP port; -1: on the
  // HTTP port (the newer layout).
  int separate_metrics_port = -1;
  double event_drop_rate = 0;
  bool legacy_evicted_keys_name = false;
  bool l1_usage_histogram = true;
  // --otlp-endpoint set, or with --sim-otel-env OTEL_EXPORTER_OTLP_ENDPOINT: metrics are pushed
  // (not simulated), /metrics is served nowhere. --disable-prometheus serves it nowhere too.
  bool metrics_pushed = false;
  // With --sim-otel-env: the endpoint taken from OTEL_EXPORTER_OTLP_ENDPOINT, logged at start.
  std::optional<std::string> otlp_endpoint_from_env;
  ThroughputNames throughput_names = ThroughputNames::kGbPerSecond;
  // --sim-clock: the scenario's shared simulated clock file; the eviction loop ticks by it.
  std::string sim_clock;
};

// INVALID_ARGUMENT naming the flag for every value the flags' own checks do not catch.
absl::StatusOr<ServerConfig> BuildServerConfig(const ServerFlags& flags);

// Parses one --l2-adapter JSON: {"type":"fs","base_path":"/mnt/nvme/l2","max_capacity_gb":0,
// "eviction":{"eviction_policy":"LRU","trigger_watermark":0.8,"eviction_ratio":0.2}} plus
// upstream's optional fs fields (accepted, not simulated). The eviction block is simulated as
// upstream's (L2EvictionOptions); without it nothing is ever evicted from L2. With
// L2ConfigGeneration::kNoEviction the block is accepted, not checked, and ignored, as the parser
// of LMCache/LMCache:lmcache/v1/distributed/l2_adapters/config.py@aa88f5bd: nothing is ever
// evicted. Other types are refused, naming the type.
absl::StatusOr<L2FsOptions> ParseL2AdapterJson(
    const std::string& json, double bytes_scale,
    L2ConfigGeneration generation = L2ConfigGeneration::kEviction);

// "tcp://<host>:<port>" to bind; "localhost" binds 127.0.0.1 and port 0 picks a free port.
std::string ZmqBindEndpoint(const std::string& host, int port);

}  // namespace kvbench::sim::lmcache
