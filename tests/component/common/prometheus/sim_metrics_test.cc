// The parser on real scrapes: kvsim-vllm wired to kvsim-lmcache, both as processes on loopback,
// after a request has gone through. Every line must parse, every family the sampler reads must be
// there with its type, and the numbers must agree with what the request did.

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/http/curl_http_client.h"
#include "common/prometheus/exposition.h"
#include "tests/support/sim_process.h"
#include "tests/support/wait_for.h"

namespace kvbench::prometheus_text {
namespace {

using ::kvbench::testing::SimProcess;
using ::kvbench::testing::WaitFor;
using Json = nlohmann::json;

constexpr int kGpuBlocks = 1000;
constexpr int kMaxTokens = 8;

std::unique_ptr<HttpClient> Client() {
  auto client = CurlHttpClient::Create();
  REQUIRE(client.ok());
  return std::move(*client);
}

std::string Get(HttpClient& client, const std::string& url) {
  absl::StatusOr<HttpResponse> response = client.Get(url);
  REQUIRE(response.ok());
  REQUIRE(response->status == 200);
  return response->body;
}

// The parse of `text`, failing the test on any parse error.
Exposition ParseClean(const std::string& text) {
  Exposition exposition = Parse(text);
  for (const ParseError& error : exposition.errors) {
    INFO("line " << error.line << ": " << error.message);
    CHECK(false);
  }
  return exposition;
}

// Checks that each sample name is declared with `type`.
void CheckTypes(const Exposition& exposition, MetricType type,
                const std::vector<std::string>& sample_names) {
  for (const std::string& name : sample_names) {
    INFO(name);
    const Family* family = FindFamily(exposition, name);
    REQUIRE(family != nullptr);
    CHECK(MetricTypeName(family->type) == MetricTypeName(type));
    CHECK_FALSE(family->help.empty());
  }
}

// Every sample belongs to a declared family.
void CheckAllDeclared(const Exposition& exposition) {
  for (const Sample& sample : exposition.samples) {
    INFO(sample.name);
    CHECK(FindFamily(exposition, sample.name) != nullptr);
  }
}

// A chat turn of ~850 tokens: three whole LMCache chunks of 256.
Json LongMessages() {
  std::string turn = "Please check my itinerary:";
  for (int w = 0; w < 400; ++w) turn += absl::StrCat(" leg", w % 97);
  return Json::array({{{"role", "user"}, {"content", turn}}});
}

struct Sims {
  Sims()
      : cache("kvsim-lmcache",
              {KV_SIM_LMCACHE_PATH, "server", "--host", "127.0.0.1", "--port", "0", "--http-port",
               "0", "--l1-size-gb", "1", "--eviction-policy", "LRU", "--sim-time-scale", "0.01"},
              "LMCache cache server is running... zmq="),
        client(Client()) {
    INFO(cache.error());
    REQUIRE(cache.Start());
    const Json connector = {
        {"kv_connector", "LMCacheMPConnector"},
        {"kv_role", "kv_both"},
        {"kv_connector_extra_config",
         {{"lmcache.mp.host", "tcp://127.0.0.1"}, {"lmcache.mp.port", cache.port()}}}};
    vllm = std::make_unique<SimProcess>(
        "kvsim-vllm",
        std::vector<std::string>{KV_SIM_VLLM_PATH, "serve", "meta-llama/Llama-3.1-8B-Instruct",
                                 "--host", "127.0.0.1", "--port", "0", "--served-model-name",
                                 "llama", "--num-gpu-blocks-override", std::to_string(kGpuBlocks),
                                 "--kv-transfer-config", connector.dump(), "--sim-time-scale",
                                 "0.01", "--sim-load-seconds", "0"},
        "Starting vLLM API server on ");
    INFO(vllm->error());
    REQUIRE(vllm->Start());
  }
  void Chat() {
    absl::StatusOr<HttpResponse> response = client->PostJson(
        vllm->url() + "/v1/chat/completions",
        Json{{"messages", LongMessages()}, {"max_tokens", kMaxTokens}, {"ignore_eos", true}}
            .dump());
    REQUIRE(response.ok());
    INFO(response->body);
    REQUIRE(response->status == 200);
  }
  std::string VllmMetrics() { return Get(*client, vllm->url() + "/metrics"); }
  std::string CacheMetrics() { return Get(*client, cache.LogField("http=") + "/metrics"); }

  SimProcess cache;
  std::unique_ptr<HttpClient> client;
  std::unique_ptr<SimProcess> vllm;
};

TEST_CASE("kvsim-vllm /metrics parses cleanly with every family the sampler reads") {
  Sims sims;
  sims.Chat();
  REQUIRE(WaitFor([&] {
    return Sum(Parse(sims.VllmMetrics()), {{"vllm:request_success_total"}, {}}).value_or(0) == 1;
  }));
  const std::string text = sims.VllmMetrics();
  const Exposition e = ParseClean(text);
  CheckAllDeclared(e);
  CheckTypes(e, MetricType::kGauge,
             {"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
              "vllm:cache_config_info"});
  CheckTypes(e, MetricType::kCounter,
             {"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total",
              "vllm:external_prefix_cache_queries_total", "vllm:external_prefix_cache_hits_total",
              "vllm:prompt_tokens_total", "vllm:generation_tokens_total",
              "vllm:request_success_total", "vllm:num_preemptions_total"});
  CheckTypes(e, MetricType::kHistogram,
             {"vllm:time_to_first_token_seconds_bucket", "vllm:inter_token_latency_seconds_bucket",
              "vllm:e2e_request_latency_seconds_bucket", "vllm:request_queue_time_seconds_bucket",
              "vllm:request_prefill_time_seconds_bucket", "vllm:request_decode_time_seconds_bucket",
              "vllm:request_inference_time_seconds_bucket", "vllm:request_prompt_tokens_bucket",
              "vllm:request_generation_tokens_bucket"});

  const Labels replica = {{"engine", "0"}, {"model_name", "llama"}};
  CHECK(Sum(e, {{"vllm:generation_tokens_total"}, replica}) == kMaxTokens);
  CHECK(Sum(e, {{"vllm:request_success_total"}, {{"finished_reason", "length"}}}) == 1);
  const std::optional<double> prompt = Sum(e, {{"vllm:prompt_tokens_total"}, replica});
  REQUIRE(prompt.has_value());
  CHECK(*prompt > 512);
  CHECK(Sum(e, {{"vllm:prefix_cache_queries_total"}, replica}) == *prompt);
  const std::optional<double> usage =
      Sum(e, {{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}, replica});
  REQUIRE(usage.has_value());
  CHECK(*usage >= 0);
  CHECK(*usage <= 1);

  const std::optional<Histogram> prefill =
      SumHistogram(e, {{"vllm:request_prefill_time_seconds"}, replica});
  REQUIRE(prefill.has_value());
  CHECK(prefill->count == 1);
  CHECK(prefill->sum > 0);
  REQUIRE_FALSE(prefill->buckets.empty());
  CHECK(prefill->buckets.rbegin()->second == 1);  // +Inf holds every observation
  double previous = 0;
  for (const auto& [le, count] : prefill->buckets) {
    CHECK(count >= previous);  // cumulative
    previous = count;
  }

  for (const Sample& sample : e.samples) {
    if (sample.name != "vllm:cache_config_info") continue;
    CHECK(sample.Label("num_gpu_blocks") == std::to_string(kGpuBlocks));
    CHECK(sample.Label("block_size") == "16");
    CHECK(sample.Label("engine") == "0");
  }
}

TEST_CASE("kvsim-lmcache /metrics parses cleanly with the lmcache_mp_* families") {
  Sims sims;
  sims.Chat();
  sims.Chat();  // the second turn looks up what the first stored
  // Counters and histograms appear at their first increment, as upstream's OpenTelemetry
  // exporter writes them: wait for the second turn's hit and the eviction loop's
  // first tick. The second turn's prefix is still in the replica's GPU cache, so nothing is
  // loaded from L1 and the load-side families are not written.
  REQUIRE(WaitFor([&] {
    const Exposition now = Parse(sims.CacheMetrics());
    return Sum(now, {{"lmcache_mp_lookup_hit_tokens_total"}, {}}).value_or(0) > 0 &&
           Sum(now, {{"lmcache_mp_l1_eviction_loop_ticks_total"}, {}}).has_value();
  }));
  const Exposition e = ParseClean(sims.CacheMetrics());
  CheckAllDeclared(e);
  CheckTypes(e, MetricType::kGauge,
             {"lmcache_mp_l1_usage_ratio", "lmcache_mp_l1_memory_usage_bytes"});
  CheckTypes(e, MetricType::kCounter,
             {"lmcache_mp_lookup_requested_tokens_total", "lmcache_mp_lookup_hit_tokens_total",
              "lmcache_mp_lookups_requests_total", "lmcache_mp_l1_write_chunks_total",
              "lmcache_mp_l1_eviction_loop_ticks_total"});
  // Nothing was evicted from the 8 GB pool nor loaded from it: those families are not written.
  CHECK(FindFamily(e, "lmcache_mp_l1_evicted_chunks_total") == nullptr);
  CHECK(FindFamily(e, "lmcache_mp_l1_read_chunks_total") == nullptr);
  CheckTypes(e, MetricType::kHistogram, {"lmcache_mp_l0_l1_store_throughput_GB_per_second_bucket"});

  const std::optional<double> requested =
      Sum(e, {{"lmcache_mp_lookup_requested_tokens_total"}, {{"model_name", "llama"}}});
  const std::optional<double> hit = Sum(e, {{"lmcache_mp_lookup_hit_tokens_total"}, {}});
  REQUIRE(requested.has_value());
  REQUIRE(hit.has_value());
  CHECK(*hit > 0);
  CHECK(*hit <= *requested);
  CHECK(Sum(e, {{"lmcache_mp_l1_write_chunks_total"}, {}}) >= 2);
  const std::optional<double> ratio = Sum(e, {{"lmcache_mp_l1_usage_ratio"}, {}});
  REQUIRE(ratio.has_value());
  CHECK(*ratio > 0);
  CHECK(*ratio <= 1);
  const std::optional<Histogram> store =
      SumHistogram(e, {{"lmcache_mp_l0_l1_store_throughput_GB_per_second",
                        "lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second"},
                       {}});
  REQUIRE(store.has_value());
  CHECK(store->count >= 1);
  CHECK(store->sum > 0);
}

}  // namespace
}  // namespace kvbench::prometheus_text
