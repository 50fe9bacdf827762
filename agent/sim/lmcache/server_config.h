#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/sim/lmcache/chunk_store.h"
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
// Real seconds per simulated second: the eviction loop ticks every 1 s x this.
inline constexpr double kDefaultTimeScale = 1.0;
// LMCache sizes pools in GB of 2^30 bytes (l1_size_gb * 1024**3).
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
  uint64_t sim_seed = 0;
};

// Adds the flags of `lmcache server` that kvbench uses, with upstream's names and defaults, to
// the `server` subcommand, plus the simulator's --sim-time-scale, --sim-l2-bytes-scale,
// --sim-seed. Accepted and ignored, so upstream command lines run unchanged: --l1-use-lazy /
// --no-l1-use-lazy, --l1-init-size-gb, --hash-algorithm. --transport takes only zmq.
void AddServerFlags(CLI::App* server, ServerFlags* flags);

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
};

// INVALID_ARGUMENT naming the flag for every value the flags' own checks do not catch.
absl::StatusOr<ServerConfig> BuildServerConfig(const ServerFlags& flags);

// Parses one --l2-adapter JSON: {"type":"fs","base_path":"/mnt/nvme/l2","max_capacity_gb":0}
// plus upstream's optional fs fields (accepted, not simulated). Other types are refused, naming
// the type.
absl::StatusOr<L2FsOptions> ParseL2AdapterJson(const std::string& json, double bytes_scale);

// "tcp://<host>:<port>" to bind; "localhost" binds 127.0.0.1 and port 0 picks a free port.
std::string ZmqBindEndpoint(const std::string& host, int port);

}  // namespace kvbench::sim::lmcache
