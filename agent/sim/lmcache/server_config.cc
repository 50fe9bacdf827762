#include "agent/sim/lmcache/server_config.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/str_cat.h"
#include "agent/sim/lmcache/release_flags.h"

namespace kvbench::sim::lmcache {
namespace {

// Optional fields of upstream's fs adapter that the simulator accepts without simulating them
// (reference/lmcache.md §2.3).
const std::set<std::string>& IgnoredFsFields() {
  static const std::set<std::string> fields = {"relative_tmp_dir", "read_ahead_size", "use_odirect",
                                               "checksum", "recover_on_start"};
  return fields;
}

absl::Status L2Error(absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("--l2-adapter: ", problem));
}

}  // namespace

void AddServerFlags(CLI::App* server, ServerFlags* flags, FlagSet flag_set) {
  server->add_option("--host", flags->host, "ZMQ bind host")->capture_default_str();
  server->add_option("--port", flags->port, "ZMQ port (0: pick a free one and log it)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  server->add_option("--http-host", flags->http_host, "HTTP bind host")->capture_default_str();
  server->add_option("--http-port", flags->http_port, "HTTP port (0: pick a free one)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  server->add_option("--chunk-size", flags->chunk_size, "Tokens per KV chunk")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  server->add_option("--l1-size-gb", flags->l1_size_gb, "L1 (pinned CPU) pool size in GB")
      ->required()
      ->check(CLI::PositiveNumber);
  server
      ->add_option("--eviction-policy", flags->eviction_policy,
                   "LRU, ARC, IsolatedLRU (simulated as LRU) or noop")
      ->required()
      ->check(CLI::IsMember({"LRU", "ARC", "IsolatedLRU", "noop"}));
  server
      ->add_option("--eviction-trigger-watermark", flags->eviction_trigger_watermark,
                   "L1 usage ratio at which the eviction loop evicts")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  server
      ->add_option("--eviction-ratio", flags->eviction_ratio,
                   "Share of the L1 capacity each triggered tick evicts")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  server
      ->add_option("--l2-adapter", flags->l2_adapters,
                   "L2 adapter JSON, e.g. {\"type\":\"fs\",\"base_path\":\"/mnt/nvme/l2\"}")
      ->allow_extra_args(false);
  server->add_option("--max-workers", flags->max_workers, "Worker threads serving requests")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  if (flag_set == FlagSet::kCurrent) {
    server
        ->add_option("--metrics-sample-rate", flags->metrics_sample_rate,
                     "Share of L2 transfers sampled into the L2 throughput histograms")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
  }
  server->add_option("--transport", flags->transport, "zmq (grpc is not simulated)")
      ->capture_default_str()
      ->check(CLI::IsMember({"zmq"}));
  // Upstream flags with no meaning for the simulator.
  server->add_flag("--l1-use-lazy,!--no-l1-use-lazy", "Accepted, not simulated");
  server->add_option("--l1-init-size-gb", "Accepted, not simulated");
  server->add_option("--hash-algorithm", "Accepted, not simulated");
  server
      ->add_option("--sim-time-scale", flags->sim_time_scale,
                   "Real seconds per simulated second (the eviction loop ticks every 1 s x this)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  server
      ->add_option("--sim-l2-bytes-scale", flags->sim_l2_bytes_scale,
                   "Real bytes per KV byte in L2 chunk files")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 1.0));
  server
      ->add_option("--sim-l2-device-bytes", flags->sim_l2_device_bytes,
                   "Simulated size of the L2 pool's disk in real bytes: stores past it fail with "
                   "ENOSPC (0: the real disk)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  server->add_option("--sim-seed", flags->sim_seed, "Seed of the metrics sampling")
      ->capture_default_str();
  server->add_option("--sim-clock", flags->sim_clock,
                     "The scenario's shared simulated clock file (kvsim-vllm --sim-clock): the "
                     "eviction loop ticks every simulated second, at the requests, instead of "
                     "on a wall-clock timer");
  server
      ->add_option("--prometheus-port", flags->prometheus_port,
                   "Port of the separate Prometheus /metrics server (with "
                   "--sim-metrics-on-prometheus-port; 0: pick a free one and log it)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  server
      ->add_option("--sim-healthcheck-path", flags->sim_healthcheck_path,
                   "Path of the health check: /healthcheck, or /api/healthcheck as the http_apis "
                   "layout")
      ->capture_default_str()
      ->check(CLI::IsMember({"/healthcheck", "/api/healthcheck"}));
  server->add_flag("--sim-metrics-on-prometheus-port", flags->sim_metrics_on_prometheus_port,
                   "Serve /metrics on --prometheus-port only, not on the HTTP port (older builds)");
  server
      ->add_option("--sim-event-drop-rate", flags->sim_event_drop_rate,
                   "Share of metric events dropped, as a full EventBus queue drops them")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  if (flag_set == FlagSet::kCurrent) {
    server->add_option("--otlp-endpoint", flags->otlp_endpoint,
                       "OTLP collector: metrics are pushed there (not simulated) and /metrics is "
                       "served nowhere, as upstream");
  }
  server->add_flag("--sim-l1-evicted-keys-name", flags->sim_l1_evicted_keys_name,
                   "Export L1 evictions as lmcache_mp_l1_evicted_keys_total (older builds)");
  server->add_flag("--sim-l1-usage-histogram,!--no-sim-l1-usage-histogram",
                   flags->sim_l1_usage_histogram,
                   "Also export a histogram named lmcache_mp_l1_usage_ratio (default: on)");
  AddReleaseFlags(server, flags, flag_set);
}

std::string ZmqBindEndpoint(const std::string& host, int port) {
  const std::string bind_host = host == "localhost" ? "127.0.0.1" : host;
  return absl::StrCat("tcp://", bind_host, ":", port == 0 ? std::string("*") : absl::StrCat(port));
}

namespace {

absl::StatusOr<L2EvictionOptions> ParseL2EvictionJson(const nlohmann::json& block) {
  if (!block.is_object()) {
    return L2Error(absl::StrCat("eviction must be a JSON object, got ", block.dump()));
  }
  L2EvictionOptions eviction;
  auto policy = block.find("eviction_policy");
  if (policy == block.end() || !policy->is_string() ||
      (*policy != "LRU" && *policy != "IsolatedLRU" && *policy != "noop")) {
    return L2Error(absl::StrCat("eviction.eviction_policy must be \"LRU\", \"IsolatedLRU\" or ",
                                "\"noop\", got ",
                                policy == block.end() ? "nothing" : policy->dump()));
  }
  eviction.policy = policy->get<std::string>();
  for (const auto& [key, value] : block.items()) {
    if (key == "eviction_policy") continue;
    double* field = key == "trigger_watermark" ? &eviction.trigger_watermark
                    : key == "eviction_ratio"  ? &eviction.eviction_ratio
                                               : nullptr;
    if (field == nullptr) return L2Error(absl::StrCat("unknown field \"eviction.", key, "\""));
    if (!value.is_number() || value.get<double>() < 0 || value.get<double>() > 1) {
      return L2Error(
          absl::StrCat("eviction.", key, " must be a number in [0, 1], got ", value.dump()));
    }
    *field = value.get<double>();
  }
  return eviction;
}

}  // namespace

absl::StatusOr<L2FsOptions> ParseL2AdapterJson(const std::string& json, double bytes_scale,
                                               L2ConfigGeneration generation) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& error) {
    return L2Error(absl::StrCat("not valid JSON: ", error.what()));
  }
  if (!root.is_object()) return L2Error(absl::StrCat("must be a JSON object, got ", root.dump()));
  auto type = root.find("type");
  if (type == root.end() || !type->is_string()) return L2Error("\"type\" is required (\"fs\")");
  if (*type != "fs") {
    return L2Error(absl::StrCat("type \"", type->get<std::string>(),
                                "\" is not simulated by kvsim-lmcache (only \"fs\")"));
  }
  L2FsOptions options;
  options.bytes_scale = bytes_scale;
  for (const auto& [key, value] : root.items()) {
    if (key == "type") continue;
    if (key == "base_path") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        return L2Error("base_path must be a non-empty string");
      }
      options.base_path = value.get<std::string>();
    } else if (key == "max_capacity_gb") {
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
        return L2Error(absl::StrCat("max_capacity_gb must be a number >= 0, got ", value.dump()));
      }
      options.max_capacity_bytes = static_cast<int64_t>(value.get<double>() * kBytesPerGb);
    } else if (key == "eviction" && generation == L2ConfigGeneration::kNoEviction) {
      continue;  // only the adapter's from_dict runs, and it reads no such key
    } else if (key == "eviction") {
      absl::StatusOr<L2EvictionOptions> eviction = ParseL2EvictionJson(value);
      if (!eviction.ok()) return eviction.status();
      options.eviction = *eviction;
    } else if (IgnoredFsFields().count(key) == 0) {
      return L2Error(absl::StrCat("unknown field \"", key, "\" for type \"fs\""));
    }
  }
  if (options.base_path.empty()) return L2Error("base_path is required for type \"fs\"");
  return options;
}

absl::StatusOr<ServerConfig> BuildServerConfig(const ServerFlags& flags) {
  ServerConfig config;
  if (flags.host.empty()) return absl::InvalidArgumentError("--host must not be empty");
  config.zmq_endpoint = ZmqBindEndpoint(flags.host, flags.port);
  config.http_host = flags.http_host;
  config.http_port = flags.http_port;
  config.eviction_policy = flags.eviction_policy;
  config.store.chunk_size = flags.chunk_size;
  config.store.l1_capacity_bytes = static_cast<int64_t>(flags.l1_size_gb * kBytesPerGb);
  if (config.store.l1_capacity_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--l1-size-gb ", flags.l1_size_gb, " is smaller than one byte"));
  }
  config.store.evict = flags.eviction_policy != "noop";
  config.store.trigger_watermark = flags.eviction_trigger_watermark;
  config.store.eviction_ratio = flags.eviction_ratio;
  if (flags.l2_adapters.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat("--l2-adapter given ", flags.l2_adapters.size(),
                                                   " times: kvsim-lmcache simulates one"));
  }
  if (!flags.l2_adapters.empty()) {
    absl::StatusOr<L2FsOptions> l2 = ParseL2AdapterJson(
        flags.l2_adapters.front(), flags.sim_l2_bytes_scale,
        flags.sim_l2_config == kL2ConfigNoEviction ? L2ConfigGeneration::kNoEviction
                                                   : L2ConfigGeneration::kEviction);
    if (!l2.ok()) return l2.status();
    config.l2 = *l2;
    config.l2->device_bytes = flags.sim_l2_device_bytes;
  }
  config.max_workers = flags.max_workers;
  config.metrics_sample_rate = flags.metrics_sample_rate;
  config.time_scale = flags.sim_time_scale;
  config.seed = flags.sim_seed;
  config.healthcheck_path = flags.sim_healthcheck_path;
  config.separate_metrics_port = flags.sim_metrics_on_prometheus_port ? flags.prometheus_port : -1;
  config.event_drop_rate = flags.sim_event_drop_rate;
  config.legacy_evicted_keys_name = flags.sim_l1_evicted_keys_name;
  config.l1_usage_histogram = flags.sim_l1_usage_histogram;
  config.metrics_pushed = !flags.otlp_endpoint.empty() || flags.disable_prometheus;
  // otel_init.py@1519dfc2 falls back to the variable when no endpoint is configured; any value,
  // even "", is an endpoint there (`is not None`).
  if (flags.sim_otel_env && flags.otlp_endpoint.empty() && flags.env_otlp_endpoint.has_value()) {
    config.metrics_pushed = true;
    config.otlp_endpoint_from_env = flags.env_otlp_endpoint;
  }
  config.throughput_names = flags.sim_throughput_names == kThroughputNamesGbsGbPerSecond
                                ? ThroughputNames::kGbsGbPerSecond
                                : ThroughputNames::kGbPerSecond;
  config.sim_clock = flags.sim_clock;
  return config;
}

}  // namespace kvbench::sim::lmcache
