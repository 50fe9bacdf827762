#include "controller/kvctl/export/llmd_observability.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "controller/kvctl/export/llmd_fields.h"
#include "controller/kvctl/export/llmd_scenario.h"
#include "controller/kvctl/export/llmd_time_series.h"
#include "controller/results/offload_served.h"
#include "controller/results/validity.h"

namespace kvbench::kvctl {
namespace {

nlohmann::ordered_json ObservedComponent(const std::string& label, const std::string& replica_id,
                                         nlohmann::ordered_json aggregate) {
  nlohmann::ordered_json component;
  component["component_label"] = label;
  if (!replica_id.empty()) component["replica_id"] = replica_id;
  component["aggregate"] = std::move(aggregate);
  return component;
}

// vLLM's metrics, summed over the replicas (result.json's `engine`). Preemptions are the
// replay's total, written as the Statistics' one required value (mean).
nlohmann::ordered_json EngineAggregate(const v1::EngineMetrics& engine) {
  nlohmann::ordered_json aggregate = nlohmann::ordered_json::object();
  if (engine.has_kv_cache_usage_mean()) {
    aggregate["kv_cache_usage"] = LlmdStatistics(kLlmdUnitFraction, engine.kv_cache_usage_mean());
    if (engine.has_kv_cache_usage_max()) {
      aggregate["kv_cache_usage"]["max"] = engine.kv_cache_usage_max();
    }
  }
  if (engine.has_local_hit_rate()) {
    aggregate["cache_hit_rate"] = LlmdStatistics(kLlmdUnitFraction, engine.local_hit_rate());
  }
  if (engine.has_num_preemptions()) {
    aggregate["preemptions"] =
        LlmdStatistics(kLlmdUnitCount, static_cast<double>(engine.num_preemptions()));
  }
  return aggregate;
}

nlohmann::ordered_json CpuAggregate(double cpu_pct) {
  nlohmann::ordered_json aggregate;
  aggregate["cpu_utilization"] = LlmdStatistics(kLlmdUnitPercent, cpu_pct);
  return aggregate;
}

nlohmann::ordered_json Components(const v1::Scenario& scenario, const v1::ScenarioResult& result) {
  nlohmann::ordered_json components = nlohmann::ordered_json::array();
  components.push_back(ObservedComponent(kLlmdEngineLabel, "", EngineAggregate(result.engine())));
  if (nlohmann::ordered_json series = LlmdEngineTimeSeries(result); !series.empty()) {
    components.back()["time_series"] = std::move(series);
  }
  // The proto map's order is unspecified: by name.
  const std::map<std::string, double> cpu(result.telemetry().process_cpu_pct_mean().begin(),
                                          result.telemetry().process_cpu_pct_mean().end());
  for (const auto& [process, pct] : cpu) {
    if (absl::StartsWith(process, "replica-")) {
      components.push_back(ObservedComponent(kLlmdEngineLabel, process, CpuAggregate(pct)));
    }
  }
  for (const v1::GpuTelemetry& gpu : result.telemetry().gpus()) {
    nlohmann::ordered_json aggregate = nlohmann::ordered_json::object();
    if (gpu.has_utilization_pct_mean()) {
      aggregate["gpu_utilization"] = LlmdStatistics(kLlmdUnitPercent, gpu.utilization_pct_mean());
    }
    if (gpu.has_power_w_mean()) {
      aggregate["power_consumption"] = LlmdStatistics(kLlmdUnitWatts, gpu.power_w_mean());
    }
    components.push_back(
        ObservedComponent(kLlmdEngineLabel, absl::StrCat("gpu-", gpu.index()), aggregate));
  }
  const bool offload = scenario.tier() == v1::CPU_RAM || scenario.tier() == v1::NVME;
  if (offload) {
    nlohmann::ordered_json aggregate = nlohmann::ordered_json::object();
    if (result.lmcache().has_hit_rate()) {
      aggregate["cache_hit_rate"] = LlmdStatistics(kLlmdUnitFraction, result.lmcache().hit_rate());
    }
    if (result.lmcache().has_l1_usage_ratio_mean()) {
      aggregate["cpu_cache_usage"] =
          LlmdStatistics(kLlmdUnitFraction, result.lmcache().l1_usage_ratio_mean());
    }
    if (auto it = cpu.find("cache-server"); it != cpu.end()) {
      aggregate["cpu_utilization"] = LlmdStatistics(kLlmdUnitPercent, it->second);
    }
    components.push_back(ObservedComponent(kLlmdCacheServerLabel, "", aggregate));
  }
  if (auto it = cpu.find("caddy"); it != cpu.end()) {
    components.push_back(ObservedComponent(kLlmdProxyLabel, "", CpuAggregate(it->second)));
  }
  return components;
}

// The search's answer for this scenario's tier, with the SLO it was searched at.
nlohmann::ordered_json TierCapacityJson(const v1::CapacityReport& capacity, v1::Tier tier) {
  for (const v1::TierCapacity& entry : capacity.tiers()) {
    if (entry.tier() != tier) continue;
    nlohmann::ordered_json json;
    json["slo"] = capacity.slo();
    json["headline"] = capacity.headline();
    json["tier"] = LlmdProtoJson(entry);
    return json;
  }
  return nullptr;
}

nlohmann::ordered_json KvbenchExtras(const v1::Job& job, const v1::ScenarioStatus& status) {
  const v1::Scenario& scenario = status.scenario();
  const v1::ScenarioResult& result = status.result();
  nlohmann::ordered_json extras;
  extras["scenario_id"] = scenario.scenario_id();
  extras["tier"] = v1::Tier_Name(scenario.tier());
  extras["concurrency"] = scenario.concurrency();
  extras["repeat"] = scenario.repeat();
  extras["attempt"] = status.attempt();
  const std::string group = results::ComparisonGroupOf(scenario);
  extras["comparison_group"] = group;
  for (const v1::Validity& validity : job.validity()) {
    if (validity.comparison_group() == group) extras["validity"] = LlmdProtoJson(validity);
  }
  extras["latency_source"] = LlmdUsesSimulatedLatency(result) ? "simulated_latency" : "latency";
  if (result.has_sim_time_scale()) extras["sim_time_scale"] = result.sim_time_scale();
  // t = 0 of result.json's series (the warm-up gate's opening), and the series the schema has
  // no slot for.
  if (result.replay_start_unix_ms() > 0) {
    extras["replay_start"] = LlmdTimestamp(result.replay_start_unix_ms());
  }
  if (nlohmann::ordered_json series = LlmdKvbenchTimeSeries(result); !series.empty()) {
    extras["time_series"] = std::move(series);
  }
  if (result.engine().has_external_hit_rate()) {
    extras["external_hit_rate"] = result.engine().external_hit_rate();
  }
  if (result.engine().has_external_hit_tokens()) {
    extras["offload_served_tokens"] = result.engine().external_hit_tokens();
  }
  if (const auto pct = results::OffloadServedPctOfPrompt(result)) {
    extras["offload_served_pct_of_prompt"] = *pct;
  }
  if (job.has_capacity()) {
    nlohmann::ordered_json capacity = TierCapacityJson(job.capacity(), scenario.tier());
    if (!capacity.is_null()) extras["capacity"] = std::move(capacity);
  }
  extras["engine"] = LlmdProtoJson(result.engine());
  if (result.has_lmcache()) extras["lmcache"] = LlmdProtoJson(result.lmcache());
  if (result.has_disk()) extras["disk"] = LlmdProtoJson(result.disk());
  extras["telemetry"] = LlmdProtoJson(result.telemetry());
  if (result.has_host_load()) extras["host_load"] = LlmdProtoJson(result.host_load());
  extras["sessions"] = LlmdProtoJson(result.sessions());
  if (result.warnings_size() > 0) {
    extras["warnings"] = nlohmann::ordered_json::array();
    for (const v1::ResultWarning& warning : result.warnings()) {
      extras["warnings"].push_back(LlmdProtoJson(warning));
    }
  }
  if (result.process_failures_size() > 0) {
    extras["process_failures"] = std::vector<std::string>(result.process_failures().begin(),
                                                          result.process_failures().end());
  }
  return extras;
}

}  // namespace

nlohmann::ordered_json LlmdObservability(const v1::Job& job, const v1::ScenarioStatus& status) {
  nlohmann::ordered_json observability;
  observability["components"] = Components(status.scenario(), status.result());
  observability["kvbench"] = KvbenchExtras(job, status);
  return observability;
}

}  // namespace kvbench::kvctl
