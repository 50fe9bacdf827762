#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/release/program_release.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/profile.pb.h"

namespace kvbench::agent::tiers {

// Profile names ChooseProfiles picks (deploy/profiles/<name>.json).
inline constexpr char kSimVllmProfile[] = "sim-vllm";
inline constexpr char kSimLmcacheProfile[] = "sim-lmcache";
inline constexpr char kVllmNvidiaProfile[] = "vllm-nvidia";
inline constexpr char kVllmAmdProfile[] = "vllm-amd";
inline constexpr char kLmcacheCpuProfile[] = "lmcache-cpu";
inline constexpr char kLmcacheNvmeProfile[] = "lmcache-nvme";

// Defaults of the wiring between replicas and the cache server (DESIGN.md step 3).
inline constexpr int kDefaultLmcacheMpPort = 5555;
inline constexpr int kLmcacheMqTimeoutSeconds = 300;
// Rendered for the replicas of every tier, so the GPU KV capacity is held fixed across tiers.
// Left to itself, vLLM turns its hybrid KV cache manager off only when --kv-transfer-config names
// a connector without SupportsHMA (vllm-project/vllm:vllm/config/vllm.py@000fc94b, __post_init__
// "Hybrid KV cache manager (HMA) runtime rules"), as vLLM's LMCacheMPConnector is
// (vllm/distributed/kv_transfer/kv_connector/v1/lmcache_mp_connector.py@474b0b8c: a plain
// KVConnectorBase_V1 that raises when given more than one KV cache group). On a sliding-window
// model (gpt-oss) the GPU tier would then keep the manager and get about twice the KV blocks of
// the offload tiers. LMCache's own copy of the class (LMCache/LMCache:
// lmcache/integration/vllm/lmcache_mp_connector.py, loaded through kv_connector_module_path)
// declares SupportsHMA, so which tiers keep the manager even depends on the connector build.
// Explicitly off, every tier has the same capacity whichever class is loaded; for a model without
// sliding-window or Mamba layers the flag changes nothing.
inline constexpr char kDisableHybridKvCacheManagerFlag[] = "--disable-hybrid-kv-cache-manager";
// The NVMe pool's L2 eviction (the fs adapter's "eviction" block): upstream's defaults, i.e. at
// 80% of max_capacity_gb the L2 eviction loop (~1 Hz) drops the least recently used 20% of the
// pool's objects (LMCache/LMCache:lmcache/v1/distributed/l2_adapters/config.py@04aa2be9,
// eviction_policy/lru.py@01c71b71).
inline constexpr double kL2EvictionTriggerWatermark = 0.8;
inline constexpr double kL2EvictionRatio = 0.2;
// A simulated NVME cache server's --sim-l2-bytes-scale (real bytes per KV byte in its L2 files,
// kvsim-lmcache's default): rendered explicitly because the disk check compares the device's
// read bytes with L2 load bytes x this.
inline constexpr double kSimL2BytesScale = 1e-3;
// Caddy (reference/caddy.md): active health every 10 s, passive 3 failures in 30 s, shutdown
// bounded so teardown never waits on an 18-hour request.
inline constexpr absl::Duration kCaddyHealthInterval = absl::Seconds(10);
inline constexpr absl::Duration kCaddyHealthTimeout = absl::Seconds(5);
inline constexpr absl::Duration kCaddyFailDuration = absl::Seconds(30);
inline constexpr int kCaddyMaxFails = 3;
inline constexpr absl::Duration kCaddyGracePeriod = absl::Seconds(10);

struct Endpoint {
  std::string host;  // an IPv4 literal: 127.0.0.1, or 127.0.0.2, 127.0.0.3... for replicas
  int port = 0;
  std::string url() const;  // "http://host:port"
};

// Where one scenario's processes listen and write: chosen by the executor (free ports, the
// agent's directories), handed to the pure renderers below.
struct ScenarioWiring {
  Endpoint cache_zmq;       // cache server ZMQ (the connector's lmcache.mp.port)
  int cache_http_port = 0;  // cache server HTTP: /healthcheck, /metrics (on cache_zmq.host)
  // Cache server's --prometheus-port: where builds without /metrics on the HTTP port serve it.
  int cache_prometheus_port = 0;
  std::vector<Endpoint> replicas;  // one per replica, distinct loopback addresses
  Endpoint proxy;                  // Caddy's listener (replicas >= 2 only)
  int proxy_admin_port = 0;        // Caddy's admin API (readiness: GET /config/)
  std::string nvme_dir;            // NVME: the fs L2 pool's base_path (wiped before and after)
  // A simulated engine's: the scenario's shared clock file (sim::SimClock), given to every
  // replica (--sim-clock, --sim-clock-rank <index>) and to kv-runner. Empty otherwise.
  std::string sim_clock;
  std::vector<std::vector<int>> replica_gpus;  // GPU indices of each replica
};

// A process to start: name for logs ("cache-server", "replica-0", "caddy"), argv, extra env, and
// the agent's variables it must not inherit.
struct LaunchPlan {
  std::string name;
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  std::vector<std::string> unset_env;
  // Flags left out because the installed release's --help does not list them (its argparse
  // would exit 2 on them), e.g. "--metrics-sample-rate=0.01" on an LMCache of the PrometheusConfig
  // generation. The scenario's result says so (warning flag_not_supported).
  std::vector<std::string> dropped_flags;
};

// Variables a cache server never inherits from the agent: LMCache builds whose OTel setup reads
// OTEL_EXPORTER_OTLP_ENDPOINT switch their metrics to OTLP push when it is set and serve no
// /metrics at all (LMCache/LMCache:lmcache/observability/otel_init.py@1519dfc2: "if otlp_endpoint
// is None: otlp_endpoint = os.environ.get(...)"), so every lmcache_* figure would be null. A
// profile that wants push sets it in its env.
inline constexpr char kOtlpEndpointEnv[] = "OTEL_EXPORTER_OTLP_ENDPOINT";

// The profiles a scenario runs (pure): the engine profile by engine and build (sim-vllm;
// vllm-nvidia / vllm-amd), and for CPU_RAM/NVME the cache-server profile (sim-lmcache;
// lmcache-cpu / lmcache-nvme). GPU has no cache server. INVALID_ARGUMENT for a VLLM job
// without a build.
struct ProfileChoice {
  std::string engine;
  std::optional<std::string> cache_server;
};
absl::StatusOr<ProfileChoice> ChooseProfiles(const v1::JobSpec& job, v1::Tier tier);

// GPUs per replica: consecutive groups of `tensor_parallel_size` from `gpus` (pure).
// FAILED_PRECONDITION when there are fewer than replicas x tp.
absl::StatusOr<std::vector<std::vector<int>>> SplitGpus(const std::vector<int>& gpus, int replicas,
                                                        int tensor_parallel_size);

// The renderers below read `job` as the effective spec (ApplyJobSpecDefaults: replicas,
// tensor_parallel_size, cpu_pool_gb, nvme_pool_gb set). Numbers are written in their shortest
// exact form ("8", "0.92"); JSON values are compact with keys in the order shown.

// The cache server's command (pure): `<command> --host H --port P --http-host H --http-port Q
// --prometheus-port R --l1-size-gb <cpu_pool_gb> --eviction-policy LRU --max-workers <replicas>`
// (R: where builds that serve /metrics on a Prometheus server of their own serve it; newer ones
// serve /metrics on Q and ignore R; the flag exists in both, LMCache/LMCache:
// lmcache/v1/mp_observability/config.py@ec451313 and @0a353d63) (+ for NVME:
// `--l2-adapter {"type":"fs","base_path":nvme_dir,"max_capacity_gb":nvme_pool_gb,"eviction":
// {"eviction_policy":"LRU","trigger_watermark":0.8,"eviction_ratio":0.2}}`: the block bounds the
// pool, which LMCache never evicts without it; and, when simulated, --sim-l2-bytes-scale
// kSimL2BytesScale), the
// simulator's --sim-time-scale / --sim-seed when the profile is simulated, then the profile's
// extra_args; env from it. H is wiring.cache_zmq.host (HTTP listens there too, never on every
// interface); --max-workers gives each replica a store/retrieve worker (lmcache.md §2.2).
// `scenario.tier` must be CPU_RAM or NVME. With `release` (the probed program), a flag its --help
// does not list is left out and named in dropped_flags: --prometheus-port and the profile's
// extra_args (the flags kvbench cannot do without are the table's required_flags, checked before
// the start, agent/release/supported_releases.h). kOtlpEndpointEnv is in unset_env unless the
// profile's env sets it.
LaunchPlan RenderCacheServer(const v1::Profile& profile, const v1::JobSpec& job,
                             const v1::Scenario& scenario, const ScenarioWiring& wiring,
                             const release::ProgramRelease* release = nullptr);

// Replica `index`'s command (pure): `<command> <model> --host H --port P
// --tensor-parallel-size T --disable-hybrid-kv-cache-manager` (every tier, see
// kDisableHybridKvCacheManagerFlag) (+ engine_overrides: --num-gpu-blocks-override,
// --gpu-memory-utilization, --max-model-len; --sim-time-scale, --sim-seed when simulated) and,
// for CPU_RAM/NVME only, `--kv-transfer-config` with LMCacheMPConnector, kv_role kv_both and
// kv_connector_extra_config {"lmcache.mp.host", "lmcache.mp.port", "lmcache.mp.mq_timeout"}
// and, when the profile names one, kv_connector_module_path (last);
// GPU never gets a connector. Then the profile's extra_args. Env: the profile's, plus
// visible_devices_env = its GPUs (wiring.replica_gpus[index], comma-separated); a profile that
// restricts GPUs through HIP_VISIBLE_DEVICES (vllm-amd) also gets CUDA_VISIBLE_DEVICES in
// unset_env (unless its env sets it), so an agent's own CUDA_VISIBLE_DEVICES cannot contradict it.
// `index` must be within wiring.replicas.
LaunchPlan RenderReplica(const v1::Profile& profile, const v1::JobSpec& job,
                         const v1::Scenario& scenario, const ScenarioWiring& wiring, int index);

// How Caddy routes a tier's requests over 2+ replicas (pure). GPU is always sticky: its prefix
// cache is one replica's VRAM. CPU_RAM and NVME follow job.offload_routing: least_conn (the
// default and the methodology's; any replica can load a prefix from the shared cache server) or,
// with OFFLOAD_ROUTING_STICKY, sticky as GPU, so a comparison can separate the offload effect from
// routing's. Sticky is Caddy's `lb_policy header X-User-Id` (a hash of the header kv-runner sets
// per virtual user), least_conn `lb_policy least_conn` (caddyserver/website:
// src/docs/markdown/caddyfile/directives/reverse_proxy.md@15ac087c, "Load balancing").
inline constexpr char kStickyRouting[] = "sticky";
inline constexpr char kLeastConnRouting[] = "least_conn";
bool RoutesSticky(const v1::JobSpec& job, v1::Tier tier);
// ScenarioResult.routing (pure): "" with one replica (nothing is routed), else kStickyRouting or
// kLeastConnRouting as RoutesSticky says.
std::string ScenarioRouting(const v1::JobSpec& job, v1::Tier tier);

// The Caddyfile for replicas >= 2 (pure): global admin on 127.0.0.1:<proxy_admin_port>,
// auto_https off, grace_period, servers { metrics }; one site bound to the proxy endpoint with
// reverse_proxy to every replica: lb_policy `header X-User-Id` where RoutesSticky (GPU; CPU_RAM
// and NVME with offload_routing STICKY), else `least_conn`; health_uri /health, health_interval,
// health_timeout, fail_duration, max_fails; transport http with no response/read timeout below
// `request_timeout`. Never flush_interval -1, lb_try_duration/lb_retries or buffer_requests
// (reference/caddy.md). Caddy 2.6.2 sets no read, write or response-header timeout by default
// (caddy.md §f), so no transport block is written: none can be below request_timeout, and the one
// default that exists, dial_timeout 3 s, bounds only the connect to a loopback replica.
// The upstreams are `{env.KV_REPLICA_<i>}`, a runtime placeholder Caddy replaces when it dials
// (and health-checks), set by CaddyUpstreamEnv: the header policy hashes an upstream's configured
// address with the key (rendezvous hashing, modules/caddyhttp/reverseproxy/selectionpolicies.go
// hostByHashing), so literal addresses would send a user to another replica whenever the ports
// the agent picked change; by name, user u meets the same replica index in every scenario and
// every rerun (checked against caddy 2.6.2 in caddyfile_test).
std::string RenderCaddyfile(const v1::JobSpec& job, const v1::Scenario& scenario,
                            const ScenarioWiring& wiring, absl::Duration request_timeout);
// The environment Caddy must run with for RenderCaddyfile's upstreams: KV_REPLICA_<i> = the
// replica's host:port.
std::map<std::string, std::string> CaddyUpstreamEnv(const ScenarioWiring& wiring);

}  // namespace kvbench::agent::tiers
