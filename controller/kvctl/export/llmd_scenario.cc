#include "controller/kvctl/export/llmd_scenario.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/checksum/crc32.h"
#include "controller/kvctl/export/llmd_fields.h"

namespace kvbench::kvctl {
namespace {

// cfg_id: the schema asks for "a hash of this component's configuration"; CRC-32 of the
// configuration as exported, so equal configurations share one id across reports.
std::string LlmdConfigId(const nlohmann::ordered_json& standardized,
                         const nlohmann::ordered_json& native) {
  return absl::StrFormat("%08x", Crc32(standardized.dump() + native.dump()));
}

nlohmann::ordered_json LlmdComponent(const std::string& label, const std::string& description,
                                     nlohmann::ordered_json standardized,
                                     nlohmann::ordered_json native) {
  nlohmann::ordered_json component;
  component["metadata"]["schema_version"] = "0.0.1";
  component["metadata"]["label"] = label;
  component["metadata"]["cfg_id"] = LlmdConfigId(standardized, native);
  component["metadata"]["description"] = description;
  component["standardized"] = std::move(standardized);
  component["native"] = std::move(native);
  return component;
}

// The accelerator's model: the GPU NVML/amd-smi named on the node, else the spec's build, marked
// simulated where the engine was.
std::string LlmdAcceleratorModel(const v1::JobSpec& spec, const v1::ScenarioResult& result) {
  for (const v1::GpuTelemetry& gpu : result.telemetry().gpus()) {
    if (!gpu.name().empty()) return gpu.name();
  }
  const std::string build = v1::Vendor_Name(spec.build());
  if (spec.engine() == v1::SIM) return absl::StrCat(build, " (simulated)");
  return build;
}

nlohmann::ordered_json LlmdEngineComponent(const v1::Job& job, const v1::ScenarioResult& result) {
  const v1::JobSpec& spec = job.spec();
  const int replicas = spec.has_replicas() ? spec.replicas() : 1;
  const int tp = spec.has_tensor_parallel_size() ? spec.tensor_parallel_size() : 1;
  nlohmann::ordered_json standardized;
  standardized["kind"] = "inference_engine";
  standardized["tool"] = LlmdComponentSimulated(result, "vllm") ? "kvsim-vllm" : "vllm";
  standardized["tool_version"] = LlmdComponentVersion(result, "vllm");
  standardized["role"] = "replica";
  standardized["replicas"] = replicas;
  standardized["model"]["name"] = spec.model();
  standardized["accelerator"]["model"] = LlmdAcceleratorModel(spec, result);
  standardized["accelerator"]["count"] = replicas * tp;
  standardized["accelerator"]["parallelism"]["tp"] = tp;
  nlohmann::ordered_json native;
  native["config"]["engine"] = v1::Engine_Name(spec.engine());
  native["config"]["engine_overrides"] = LlmdProtoJson(spec.engine_overrides());
  if (result.engine().has_num_gpu_blocks()) {
    native["config"]["num_gpu_blocks"] = result.engine().num_gpu_blocks();
  }
  if (result.engine().has_block_size())
    native["config"]["block_size"] = result.engine().block_size();
  if (result.has_kv_connector()) {
    native["config"]["kv_connector"] = LlmdProtoJson(result.kv_connector());
  }
  return LlmdComponent(kLlmdEngineLabel, "vLLM replicas (one per GPU group), scraped directly",
                       std::move(standardized), std::move(native));
}

nlohmann::ordered_json LlmdCacheServerComponent(const v1::Job& job, const v1::Scenario& scenario,
                                                const v1::ScenarioResult& result) {
  const v1::JobSpec& spec = job.spec();
  nlohmann::ordered_json standardized;
  standardized["kind"] = "generic";
  standardized["tool"] = LlmdComponentSimulated(result, "lmcache") ? "kvsim-lmcache" : "lmcache";
  standardized["tool_version"] = LlmdComponentVersion(result, "lmcache");
  standardized["tier"] = v1::Tier_Name(scenario.tier());
  if (spec.has_cpu_pool_gb()) standardized["cpu_pool_gb"] = spec.cpu_pool_gb();
  if (scenario.tier() == v1::NVME && spec.has_nvme_pool_gb()) {
    standardized["nvme_pool_gb"] = spec.nvme_pool_gb();
  }
  return LlmdComponent(kLlmdCacheServerLabel,
                       "one `lmcache server` shared by the replicas (L1 in RAM; NVME: L2 on disk)",
                       std::move(standardized), nlohmann::ordered_json::object());
}

nlohmann::ordered_json LlmdProxyComponent(const v1::Scenario& scenario,
                                          const v1::ScenarioResult& result) {
  nlohmann::ordered_json standardized;
  standardized["kind"] = "generic";
  standardized["tool"] = "caddy";
  standardized["tool_version"] = LlmdComponentVersion(result, "caddy");
  standardized["tier"] = v1::Tier_Name(scenario.tier());
  // result.json's routing: "sticky" (by X-User-Id), "least_conn", "" with one replica.
  standardized["routing"] = result.routing();
  return LlmdComponent(kLlmdProxyLabel, "the reverse proxy in front of the replicas",
                       std::move(standardized), nlohmann::ordered_json::object());
}

// A length per request from result.json's totals: the mean over the successful requests (the
// replay's per-request lengths are in requests.jsonl; the schema's "other" distribution).
nlohmann::ordered_json LlmdMeanLength(int64_t total, int64_t requests) {
  nlohmann::ordered_json length;
  length["distribution"] = "other";
  length["value"] = static_cast<double>(total) / static_cast<double>(requests);
  return length;
}

nlohmann::ordered_json LlmdLoad(const v1::Job& job, const v1::ScenarioStatus& status) {
  const v1::JobSpec& spec = job.spec();
  const v1::Scenario& scenario = status.scenario();
  const v1::ScenarioResult& result = status.result();
  const v1::LatencyMetrics& latency = LlmdLatency(result);
  nlohmann::ordered_json standardized;
  standardized["tool"] = "kv-runner";
  standardized["tool_version"] = LlmdComponentVersion(result, "kvbench");
  standardized["source"] = "sampled";
  standardized["stage"] = scenario.index();
  const int64_t requests = latency.requests_completed();
  if (requests > 0) {
    standardized["input_seq_len"] = LlmdMeanLength(latency.prompt_tokens_total(), requests);
  } else {
    // Not reached for a result (a scenario with no successful request has none); the field is
    // required, and 0 requests sent nothing.
    standardized["input_seq_len"] = {{"distribution", "other"}, {"value", 0}};
  }
  // OSL > 0: every answer that long (kv-runner sends ignore_eos).
  if (spec.osl() > 0) {
    standardized["output_seq_len"] = {{"distribution", "fixed"}, {"value", spec.osl()}};
  } else if (requests > 0) {
    standardized["output_seq_len"] = LlmdMeanLength(latency.output_tokens_total(), requests);
  }
  standardized["multi_turn"]["enabled"] = true;
  standardized["multi_turn"]["max_turns"] = {{"distribution", "fixed"},
                                             {"value", spec.num_rounds()}};
  standardized["concurrency"] = scenario.concurrency();
  nlohmann::ordered_json native;
  native["config"]["dataset"] = LlmdProtoJson(spec.dataset());
  native["config"]["num_rounds"] = spec.num_rounds();
  native["config"]["isl"] = spec.isl();
  native["config"]["osl"] = spec.osl();
  native["config"]["sessions"] = scenario.sessions();
  native["config"]["concurrency"] = scenario.concurrency();
  native["config"]["repeat"] = scenario.repeat();
  if (scenario.has_seed()) native["config"]["seed"] = std::to_string(scenario.seed());
  native["config"]["selection"] = result.sessions().selection();
  nlohmann::ordered_json load;
  load["metadata"]["schema_version"] = "0.0.1";
  load["metadata"]["cfg_id"] = LlmdConfigId(standardized, native);
  load["metadata"]["description"] =
      "closed-loop replay of recorded multi-turn conversations: each virtual user sends its "
      "next round when the previous answer ends; concurrency = virtual users";
  load["standardized"] = std::move(standardized);
  load["native"] = std::move(native);
  return load;
}

}  // namespace

nlohmann::ordered_json LlmdScenario(const v1::Job& job, const v1::ScenarioStatus& status) {
  const v1::Scenario& scenario = status.scenario();
  const v1::ScenarioResult& result = status.result();
  nlohmann::ordered_json stack = nlohmann::ordered_json::array();
  stack.push_back(LlmdEngineComponent(job, result));
  if (scenario.tier() == v1::CPU_RAM || scenario.tier() == v1::NVME) {
    stack.push_back(LlmdCacheServerComponent(job, scenario, result));
  }
  stack.push_back(LlmdProxyComponent(scenario, result));
  nlohmann::ordered_json out;
  out["stack"] = std::move(stack);
  out["load"] = LlmdLoad(job, status);
  return out;
}

}  // namespace kvbench::kvctl
