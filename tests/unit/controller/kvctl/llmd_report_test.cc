// kvctl export --format llmd-br-0.2.1 on a small synthetic result.json with known numbers: every
// number the report carries is traced to the result.json (or job) field it came from, each point
// of a time series to its series' t_s and value, and what kvbench did not measure is absent,
// never 0.

#include "controller/kvctl/export/llmd_report.h"

#include <catch2/catch.hpp>
#include <string>

#include "common/json/proto_json.h"
#include "controller/kvctl/export/llmd_time_series.h"

namespace kvbench::kvctl {
namespace {

// A CPU_RAM scenario's result.json, as the agent writes it (64-bit integers as strings).
constexpr char kResultJson[] = R"({
  "scenario_id": "01-cpu-ram-c4", "tier": "CPU_RAM", "concurrency": 4,
  "latency": {"ttft_mean_s": 0.5, "ttft_p50_s": 0.25, "ttft_p90_s": 0.75, "ttft_p95_s": 0.875,
              "ttft_p99_s": 1.5, "tpot_mean_s": 0.01, "input_tokens_per_s": 1000,
              "output_tokens_per_s": 100, "requests_per_s": 2, "duration_s": 40,
              "requests_completed": "80", "prompt_tokens_total": "200000",
              "output_tokens_total": "5120"},
  "simulated_latency": {"ttft_mean_s": 2, "ttft_p50_s": 1, "ttft_p90_s": 3, "ttft_p95_s": 3.5,
              "ttft_p99_s": 6, "tpot_mean_s": 0.04, "input_tokens_per_s": 250,
              "output_tokens_per_s": 25, "requests_per_s": 0.5, "duration_s": 160,
              "requests_completed": "80", "prompt_tokens_total": "200000",
              "output_tokens_total": "5120"},
  "sim_time_scale": 0.25,
  "sessions": {"requested": 16, "achieved": 16, "dataset_ceiling": 32, "total": 16,
               "complete": 14, "error": 2, "failed_requests": "3"},
  "engine": {"local_hit_rate": 0.625, "external_hit_rate": 0.125, "kv_cache_usage_mean": 0.5,
             "kv_cache_usage_max": 0.9375, "num_preemptions": "7", "num_gpu_blocks": "1024",
             "block_size": 16, "external_hit_tokens": "50000", "external_query_tokens": "80000"},
  "lmcache": {"hit_rate": 0.75, "l1_usage_ratio_mean": 0.375, "l1_usage_bytes_max": "123456"},
  "telemetry": {"gpu_available": true,
                "gpus": [{"index": 0, "name": "NVIDIA H200", "power_w_mean": 410.5,
                          "utilization_pct_mean": 87.5, "memory_used_bytes_max": "1000"}],
                "cpu_utilization_pct_mean": 30,
                "process_cpu_pct_mean": {"replica-0": 12.5, "replica-1": 13.5,
                                         "cache-server": 2.5, "caddy": 9.5, "kv-runner": 4}},
  "start_unix_ms": "1796597263000", "end_unix_ms": "1796597303500",
  "replay_start_unix_ms": "1796597264250",
  "series": [{"name": "kv_cache_usage", "t_s": [0.5, 1, 2.0004], "value": [0.25, 0.5, 0.75]},
             {"name": "local_hit_rate", "t_s": [0.75, 1.5], "value": [0.5, 0.625]},
             {"name": "external_hit_rate", "t_s": [1.5], "value": [0.125]},
             {"name": "queue_depth", "t_s": [3.0005], "value": [7]}],
  "routing": "least_conn",
  "versions": [{"component": "vllm", "version": "0.12.0"},
               {"component": "lmcache", "version": "0.3.9"},
               {"component": "caddy", "version": "2.6.2"},
               {"component": "kvbench", "version": "0.1.0"}],
  "process_failures": ["replica-1 killed by signal 9 (SIGKILL) during the replay"]
})";

v1::Job SyntheticJob() {
  v1::Job job;
  job.set_job_id("job-7");
  v1::JobSpec& spec = *job.mutable_spec();
  spec.set_name("synthetic");
  spec.set_model("meta-llama/Llama-3.1-8B-Instruct");
  spec.set_build(v1::NVIDIA);
  spec.set_engine(v1::VLLM);
  spec.set_replicas(2);
  spec.set_tensor_parallel_size(2);
  spec.set_num_rounds(5);
  spec.set_osl(64);
  spec.set_cpu_pool_gb(8);
  (*spec.mutable_labels())["team"] = "serving";
  v1::ScenarioStatus& status = *job.add_scenarios();
  v1::Scenario& scenario = *status.mutable_scenario();
  scenario.set_scenario_id("01-cpu-ram-c4");
  scenario.set_index(1);
  scenario.set_tier(v1::CPU_RAM);
  scenario.set_concurrency(4);
  scenario.set_sessions(16);
  scenario.set_comparison_group("c4");
  scenario.set_repeat(1);
  status.set_state(v1::SCENARIO_STATE_SUCCEEDED);
  status.set_attempt(2);
  const FieldErrors errors = ParseJsonToProto(kResultJson, status.mutable_result());
  INFO(errors.ToStatus("result.json").ToString());
  REQUIRE(errors.empty());
  v1::Validity& validity = *job.add_validity();
  validity.set_comparison_group("c4");
  validity.set_verdict(v1::VERDICT_VALID);
  v1::TierCapacity& capacity = *job.mutable_capacity()->add_tiers();
  job.mutable_capacity()->set_slo("TTFT p95 ≤ 1 s");
  capacity.set_tier(v1::CPU_RAM);
  capacity.set_capacity(15);
  capacity.set_low(15);
  capacity.set_high(19);
  return job;
}

TEST_CASE("llm-d report: run, stack and load come from the job and result.json") {
  const v1::Job job = SyntheticJob();
  absl::StatusOr<nlohmann::ordered_json> report = LlmdBenchmarkReport(job, job.scenarios(0));
  REQUIRE(report.ok());
  const nlohmann::ordered_json& r = *report;
  CHECK(r["version"] == "0.2.1");
  CHECK(r["run"]["uid"] == "job-7/01-cpu-ram-c4/attempt-2");  // per attempt
  CHECK(r["run"]["eid"] == "job-7");
  CHECK(r["run"]["time"]["start"] == "2026-12-06T22:47:43.000Z");  // start_unix_ms
  CHECK(r["run"]["time"]["end"] == "2026-12-06T22:48:23.500Z");    // end_unix_ms
  CHECK(r["run"]["time"]["duration"] == "PT40.500S");
  CHECK(r["run"]["keywords"] == nlohmann::ordered_json::array({"team=serving"}));

  const nlohmann::ordered_json& stack = r["scenario"]["stack"];
  REQUIRE(stack.size() == 3);
  const nlohmann::ordered_json& engine = stack[0]["standardized"];
  CHECK(stack[0]["metadata"]["label"] == "vllm");
  CHECK(engine["kind"] == "inference_engine");
  CHECK(engine["tool"] == "vllm");
  CHECK(engine["tool_version"] == "0.12.0");  // versions[vllm]
  CHECK(engine["replicas"] == 2);             // spec.replicas
  CHECK(engine["model"]["name"] == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(engine["accelerator"]["model"] == "NVIDIA H200");  // telemetry.gpus[0].name
  CHECK(engine["accelerator"]["count"] == 4);              // replicas x TP
  CHECK(engine["accelerator"]["parallelism"]["tp"] == 2);
  CHECK(stack[0]["native"]["config"]["num_gpu_blocks"] == 1024);  // engine.num_gpu_blocks
  const nlohmann::ordered_json& cache = stack[1]["standardized"];
  CHECK(stack[1]["metadata"]["label"] == "lmcache");
  CHECK(cache["kind"] == "generic");
  CHECK(cache["tool_version"] == "0.3.9");
  CHECK(cache["tier"] == "CPU_RAM");
  CHECK(cache["cpu_pool_gb"] == 8.0);
  CHECK_FALSE(cache.contains("nvme_pool_gb"));
  CHECK(stack[2]["standardized"]["routing"] == "least_conn");

  const nlohmann::ordered_json& load = r["scenario"]["load"]["standardized"];
  CHECK(load["tool"] == "kv-runner");
  CHECK(load["stage"] == 1);
  CHECK(load["input_seq_len"]["value"] == 2500.0);  // prompt_tokens_total / requests_completed
  CHECK(load["output_seq_len"]["distribution"] == "fixed");
  CHECK(load["output_seq_len"]["value"] == 64);  // spec.osl
  CHECK(load["multi_turn"]["max_turns"]["value"] == 5);
  CHECK(load["concurrency"] == 4);
}

TEST_CASE("llm-d report: request and session performance, simulated time on a simulator") {
  const v1::Job job = SyntheticJob();
  const nlohmann::ordered_json r = *LlmdBenchmarkReport(job, job.scenarios(0));
  const nlohmann::ordered_json& aggregate = r["results"]["request_performance"]["aggregate"];
  // simulated_latency, not latency: what kvctl shows for a simulated engine.
  const nlohmann::ordered_json& ttft = aggregate["latency"]["time_to_first_token"];
  CHECK(ttft["units"] == "s");
  CHECK(ttft["mean"] == 2.0);
  CHECK(ttft["p50"] == 1.0);
  CHECK(ttft["p90"] == 3.0);
  CHECK(ttft["p95"] == 3.5);
  CHECK(ttft["p99"] == 6.0);
  CHECK(aggregate["latency"]["time_per_output_token"] ==
        nlohmann::ordered_json({{"units", "s/token"}, {"mean", 0.04}}));
  CHECK_FALSE(aggregate["latency"].contains("request_latency"));  // not in result.json
  CHECK(aggregate["throughput"]["input_token_rate"]["mean"] == 250.0);
  CHECK(aggregate["throughput"]["output_token_rate"]["mean"] == 25.0);
  CHECK(aggregate["throughput"]["total_token_rate"]["mean"] == 275.0);
  CHECK(aggregate["throughput"]["request_rate"] ==
        nlohmann::ordered_json({{"units", "queries/s"}, {"mean", 0.5}}));
  CHECK(aggregate["requests"]["total"] == 83);  // completed 80 + failed 3
  CHECK(aggregate["requests"]["failures"] == 3);
  CHECK(aggregate["requests"]["input_length"]["mean"] == 2500.0);
  CHECK(aggregate["requests"]["output_length"]["mean"] == 64.0);
  CHECK_FALSE(r["results"]["request_performance"].contains("time_series"));
  const nlohmann::ordered_json& sessions = r["results"]["session_performance"]["sessions"];
  CHECK(sessions["total"] == 16);
  CHECK(sessions["succeeded"] == 14);
  CHECK(sessions["failed"] == 2);
  CHECK(sessions["total_events"] == 83);
  CHECK(sessions["total_events_completed"] == 80);

  // Without simulated_latency (a real engine): latency.
  v1::Job real = job;
  real.mutable_scenarios(0)->mutable_result()->clear_simulated_latency();
  const nlohmann::ordered_json r2 = *LlmdBenchmarkReport(real, real.scenarios(0));
  CHECK(
      r2["results"]["request_performance"]["aggregate"]["latency"]["time_to_first_token"]["mean"] ==
      0.5);
  CHECK(r2["results"]["observability"]["kvbench"]["latency_source"] == "latency");
}

TEST_CASE("llm-d report: observability per component, kvbench's own keys beside") {
  const v1::Job job = SyntheticJob();
  const nlohmann::ordered_json r = *LlmdBenchmarkReport(job, job.scenarios(0));
  const nlohmann::ordered_json& components = r["results"]["observability"]["components"];
  REQUIRE(components.size() == 6);
  const nlohmann::ordered_json& engine = components[0]["aggregate"];
  CHECK(components[0]["component_label"] == "vllm");
  CHECK(engine["kv_cache_usage"] ==
        nlohmann::ordered_json({{"units", "fraction"}, {"mean", 0.5}, {"max", 0.9375}}));
  CHECK(engine["cache_hit_rate"]["mean"] == 0.625);  // engine.local_hit_rate
  CHECK(engine["preemptions"] == nlohmann::ordered_json({{"units", "count"}, {"mean", 7.0}}));
  CHECK(components[1]["replica_id"] == "replica-0");
  CHECK(components[1]["aggregate"]["cpu_utilization"]["mean"] == 12.5);
  CHECK(components[2]["replica_id"] == "replica-1");
  CHECK(components[2]["aggregate"]["cpu_utilization"]["mean"] == 13.5);
  CHECK(components[3]["replica_id"] == "gpu-0");
  CHECK(components[3]["aggregate"]["gpu_utilization"] ==
        nlohmann::ordered_json({{"units", "percent"}, {"mean", 87.5}}));
  CHECK(components[3]["aggregate"]["power_consumption"] ==
        nlohmann::ordered_json({{"units", "Watts"}, {"mean", 410.5}}));
  // Only a maximum of GPU memory: the schema's Statistics needs a mean, so it is not there.
  CHECK_FALSE(components[3]["aggregate"].contains("gpu_memory_usage"));
  CHECK(components[4]["component_label"] == "lmcache");
  CHECK(components[4]["aggregate"]["cache_hit_rate"]["mean"] == 0.75);
  CHECK(components[4]["aggregate"]["cpu_cache_usage"]["mean"] == 0.375);
  CHECK(components[4]["aggregate"]["cpu_utilization"]["mean"] == 2.5);
  CHECK(components[5]["component_label"] == "caddy");
  CHECK(components[5]["aggregate"]["cpu_utilization"]["mean"] == 9.5);

  const nlohmann::ordered_json& extras = r["results"]["observability"]["kvbench"];
  CHECK(extras["tier"] == "CPU_RAM");
  CHECK(extras["attempt"] == 2);
  CHECK(extras["validity"]["verdict"] == "VERDICT_VALID");
  CHECK(extras["latency_source"] == "simulated_latency");
  CHECK(extras["sim_time_scale"] == 0.25);
  CHECK(extras["external_hit_rate"] == 0.125);
  CHECK(extras["offload_served_tokens"] == 50000);
  CHECK(extras["offload_served_pct_of_prompt"] == 25.0);  // 50000 / 200000
  CHECK(extras["capacity"]["slo"] == "TTFT p95 ≤ 1 s");
  CHECK(extras["capacity"]["tier"]["capacity"] == 15);
  CHECK(extras["engine"]["num_preemptions"] == "7");  // result.json's block as it is
  CHECK(extras["lmcache"]["l1_usage_bytes_max"] == "123456");
  CHECK(extras["process_failures"][0] ==
        "replica-1 killed by signal 9 (SIGKILL) during the replay");
}

nlohmann::ordered_json Point(const char* ts, double value) {
  return nlohmann::ordered_json({{"ts", ts}, {"value", value}});
}

TEST_CASE("llm-d report: result.json's series dated from replay_start_unix_ms") {
  const v1::Job job = SyntheticJob();
  const v1::ScenarioResult& result = job.scenarios(0).result();
  CHECK_FALSE(LlmdSeriesUndated(result));
  const nlohmann::ordered_json r = *LlmdBenchmarkReport(job, job.scenarios(0));
  const nlohmann::ordered_json& observability = r["results"]["observability"];
  // t_s = 0 is replay_start_unix_ms 1796597264250: each point at it + round(t_s x 1000) ms.
  const nlohmann::ordered_json& engine = observability["components"][0];
  CHECK(engine["component_label"] == "vllm");
  CHECK_FALSE(engine.contains("replica_id"));
  CHECK(engine["time_series"] ==
        nlohmann::ordered_json(
            {{"kv_cache_usage",
              {{"units", "fraction"},  // as its aggregate
               {"series", nlohmann::ordered_json::array(
                              {Point("2026-12-06T22:47:44.750Z", 0.25),
                               Point("2026-12-06T22:47:45.250Z", 0.5),
                               Point("2026-12-06T22:47:46.250Z", 0.75)})}}}}));  // 2.0004 s
  for (size_t i = 1; i < observability["components"].size(); ++i) {
    CHECK_FALSE(observability["components"][i].contains("time_series"));  // no series of theirs
  }
  // Hit rates have no slot among the schema's resource metrics: kvbench's keys.
  const nlohmann::ordered_json& extras = observability["kvbench"];
  CHECK(extras["replay_start"] == "2026-12-06T22:47:44.250Z");
  CHECK(extras["time_series"]["local_hit_rate"] ==
        nlohmann::ordered_json({{"units", "fraction"},
                                {"series", nlohmann::ordered_json::array(
                                               {Point("2026-12-06T22:47:45.000Z", 0.5),
                                                Point("2026-12-06T22:47:45.750Z", 0.625)})}}));
  CHECK(extras["time_series"]["external_hit_rate"] ==
        nlohmann::ordered_json({{"units", "fraction"},
                                {"series", nlohmann::ordered_json::array(
                                               {Point("2026-12-06T22:47:45.750Z", 0.125)})}}));
  // A series this export does not know: there too, without units it would have to guess.
  CHECK(extras["time_series"]["queue_depth"] ==
        nlohmann::ordered_json(
            {{"series", nlohmann::ordered_json::array({Point("2026-12-06T22:47:47.251Z", 7.0)})}}));
  CHECK_FALSE(extras["time_series"].contains("kv_cache_usage"));  // in its slot, not twice
  // Per-request windows are not dated on the same clock: no request time series.
  CHECK_FALSE(r["results"]["request_performance"].contains("time_series"));
}

TEST_CASE("llm-d report: series without replay_start_unix_ms are left out, never dated") {
  v1::Job job = SyntheticJob();
  v1::ScenarioResult& result = *job.mutable_scenarios(0)->mutable_result();
  result.clear_replay_start_unix_ms();  // an older agent's result.json
  CHECK(LlmdSeriesUndated(result));
  const nlohmann::ordered_json r = *LlmdBenchmarkReport(job, job.scenarios(0));
  for (const nlohmann::ordered_json& component : r["results"]["observability"]["components"]) {
    CHECK_FALSE(component.contains("time_series"));
  }
  CHECK_FALSE(r["results"]["observability"]["kvbench"].contains("time_series"));
  CHECK_FALSE(r["results"]["observability"]["kvbench"].contains("replay_start"));
  CHECK(r["run"]["time"]["start"] == "2026-12-06T22:47:43.000Z");  // the rest as before
  result.clear_series();
  CHECK_FALSE(LlmdSeriesUndated(result));  // nothing left out
}

TEST_CASE("llm-d report: the GPU tier has no cache server, a scenario without a result none") {
  v1::Job job = SyntheticJob();
  v1::ScenarioStatus& status = *job.mutable_scenarios(0);
  status.mutable_scenario()->set_tier(v1::GPU);
  status.mutable_result()->clear_lmcache();
  const nlohmann::ordered_json r = *LlmdBenchmarkReport(job, status);
  REQUIRE(r["scenario"]["stack"].size() == 2);
  CHECK(r["scenario"]["stack"][1]["metadata"]["label"] == "caddy");
  for (const nlohmann::ordered_json& component : r["results"]["observability"]["components"]) {
    CHECK(component["component_label"] != "lmcache");
  }
  CHECK_FALSE(r["results"]["observability"]["kvbench"].contains("capacity"));  // no GPU entry

  status.clear_result();
  status.set_state(v1::SCENARIO_STATE_FAILED);
  const absl::StatusOr<nlohmann::ordered_json> none = LlmdBenchmarkReport(job, status);
  CHECK(none.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(none.status().message()) ==
        "scenario 01-cpu-ram-c4 has no result (SCENARIO_STATE_FAILED)");
}

}  // namespace
}  // namespace kvbench::kvctl
