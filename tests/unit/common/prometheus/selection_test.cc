// Reading what the benchmark needs out of real-shaped vLLM V1 and LMCache MP scrapes: sums
// across label sets (engines, replicas, tiers), version renames, label matches, histograms, and
// absent meaning absent rather than zero.

#include <catch2/catch.hpp>
#include <limits>
#include <string>

#include "common/prometheus/exposition.h"
#include "tests/unit/common/prometheus/payloads.h"

namespace kvbench::prometheus_text {
namespace {

using testing::kLmcacheMp;
using testing::kLmcacheMpOld;
using testing::kVllmEarlyV1TwoEngines;
using testing::kVllmV1;

constexpr char kModel[] = "meta-llama/Llama-3.1-8B-Instruct";

Exposition ParseClean(const char* text) {
  Exposition exposition = Parse(text);
  for (const ParseError& error : exposition.errors) {
    INFO("line " << error.line << ": " << error.message);
    CHECK(false);
  }
  return exposition;
}

const Selector kKvUsage{{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}, {}};

TEST_CASE("vLLM V1 scrape: families, types and engine/model_name labels") {
  const Exposition e = ParseClean(kVllmV1);
  auto type_of = [&](const char* sample) {
    const Family* family = FindFamily(e, sample);
    REQUIRE(family != nullptr);
    return family->type;
  };
  CHECK(type_of("vllm:num_requests_running") == MetricType::kGauge);
  CHECK(type_of("vllm:prefix_cache_queries_total") == MetricType::kCounter);
  CHECK(type_of("vllm:prefix_cache_queries_created") == MetricType::kGauge);
  CHECK(type_of("vllm:request_prefill_time_seconds_bucket") == MetricType::kHistogram);
  CHECK(type_of("vllm:iteration_tokens_total_sum") == MetricType::kHistogram);  // not a counter
  CHECK(type_of("vllm:cache_config_info") == MetricType::kGauge);
  CHECK_THAT(e.families.at("vllm:gpu_cache_usage_perc").help, Catch::Contains("DEPRECATED"));

  const Sample& running = e.samples[1];
  REQUIRE(running.name == "vllm:num_requests_running");
  CHECK(running.labels == Labels{{"engine", "0"}, {"model_name", kModel}});
  CHECK(running.value == 2);
}

TEST_CASE("vLLM V1 scrape: prefix-cache counters, with and without the connector's") {
  const Exposition e = ParseClean(kVllmV1);
  const Labels engine0 = {{"engine", "0"}, {"model_name", kModel}};
  CHECK(Sum(e, {{"vllm:prefix_cache_queries_total"}, engine0}) == 4096);
  CHECK(Sum(e, {{"vllm:prefix_cache_hits_total"}, engine0}) == 3072);
  CHECK(Sum(e, {{"vllm:external_prefix_cache_queries_total"}, {}}) == 1024);
  CHECK(Sum(e, {{"vllm:external_prefix_cache_hits_total"}, {}}) == 512);
  // The _created gauge is a separate series, never added into the counter.
  CHECK(Sum(e, {{"vllm:prefix_cache_hits_created"}, {}}) == Approx(1.7526184713e9));
  // Counters by label: the finished_reason split sums to the total.
  CHECK(Sum(e, {{"vllm:request_success_total"}, {}}) == 4);
  CHECK(Sum(e, {{"vllm:request_success_total"}, {{"finished_reason", "length"}}}) == 1);
  // Without a connector vLLM has no external_* series at all: absent, not zero.
  const Exposition early = ParseClean(kVllmEarlyV1TwoEngines);
  CHECK_FALSE(Sum(early, {{"vllm:external_prefix_cache_hits_total"}, {}}).has_value());
}

TEST_CASE("vLLM V1 scrape: KV usage through the gpu_cache_usage_perc rename") {
  // 0.10.x emits both; the current name wins and the two are never added together.
  CHECK(Sum(ParseClean(kVllmV1), kKvUsage) == 0.125);
  // Early V1 has only the old name: the fallback is taken, summed over both DP engines.
  const Exposition early = ParseClean(kVllmEarlyV1TwoEngines);
  CHECK(Sum(early, kKvUsage) == 0.75);
  CHECK(Sum(early, {kKvUsage.names, {{"engine", "1"}}}) == 0.5);
}

TEST_CASE("vLLM V1 scrape: cache_config_info carries the KV geometry as labels") {
  const Exposition e = ParseClean(kVllmV1);
  const Sample* info = nullptr;
  for (const Sample& sample : e.samples) {
    if (sample.name == "vllm:cache_config_info") info = &sample;
  }
  REQUIRE(info != nullptr);
  CHECK(info->value == 1);
  CHECK(info->Label("num_gpu_blocks") == "29257");
  CHECK(info->Label("block_size") == "16");
  CHECK(info->Label("engine") == "0");
  CHECK(info->labels.size() == 15);
}

TEST_CASE("vLLM V1 scrape: request_prefill_time_seconds as a histogram") {
  const std::optional<Histogram> h =
      SumHistogram(ParseClean(kVllmV1), {{"vllm:request_prefill_time_seconds"}, {}});
  REQUIRE(h.has_value());
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(h->buckets == std::map<double, double>{{0.3, 1}, {0.5, 3}, {1.0, 4}, {inf, 4}});
  CHECK(h->sum == 1.625);
  CHECK(h->count == 4);
}

TEST_CASE("Histograms sum bucket by bucket across label sets, or one set by label match") {
  const Exposition e = ParseClean(kVllmEarlyV1TwoEngines);
  const double inf = std::numeric_limits<double>::infinity();
  const std::optional<Histogram> both =
      SumHistogram(e, {{"vllm:request_prefill_time_seconds"}, {{"model_name", "qwen"}}});
  REQUIRE(both.has_value());
  CHECK(both->buckets == std::map<double, double>{{0.3, 1}, {0.5, 3}, {inf, 5}});
  CHECK(both->sum == 4.75);
  CHECK(both->count == 5);
  const std::optional<Histogram> one =
      SumHistogram(e, {{"vllm:request_prefill_time_seconds"}, {{"engine", "1"}}});
  REQUIRE(one.has_value());
  CHECK(one->buckets == std::map<double, double>{{0.3, 0}, {0.5, 1}, {inf, 3}});
  CHECK(one->count == 3);
  // The base name itself, or a sibling that merely shares its prefix, is not a histogram part.
  CHECK_FALSE(SumHistogram(e, {{"vllm:request_prefill_time"}, {}}).has_value());
  CHECK_FALSE(
      SumHistogram(e, {{"vllm:request_prefill_time_seconds"}, {{"engine", "7"}}}).has_value());
  CHECK_FALSE(SumHistogram(e, {{"vllm:time_to_first_token_seconds"}, {}}).has_value());
}

TEST_CASE("LMCache MP scrape: lmcache_mp_* counters and gauges summed across label sets") {
  const Exposition e = ParseClean(kLmcacheMp);
  CHECK(FindFamily(e, "lmcache_mp_lookup_hit_tokens_total")->type == MetricType::kCounter);
  CHECK(FindFamily(e, "lmcache_mp_l1_usage_ratio")->type == MetricType::kGauge);
  CHECK(Sum(e, {{"lmcache_mp_l1_usage_ratio"}, {}}) == 0.8125);
  CHECK(Sum(e, {{"lmcache_mp_l1_memory_usage_bytes"}, {}}) == 8.72415232e9);
  CHECK(Sum(e, {{"lmcache_mp_lookup_requested_tokens_total"}, {}}) == 10240);
  CHECK(Sum(e, {{"lmcache_mp_lookup_hit_tokens_total"}, {}}) == 6400);
  CHECK(Sum(e, {{"lmcache_mp_lookup_hit_tokens_total"}, {{"cache_salt", ""}}}) == 6144);
  CHECK(Sum(e, {{"lmcache_mp_l2_store_completed_requests_total"}, {{"l2_name", "fs_0"}}}) == 40);
  CHECK(Sum(e, {{"lmcache_mp_l2_store_completed_requests_total"}, {}}) == 42);
  CHECK(Sum(e, {{"lmcache_mp_l1_evicted_chunks_total"}, {}}) == 64);
}

TEST_CASE("LMCache MP scrape: throughput histograms under both generations' names") {
  const Selector store{{"lmcache_mp_l0_l1_store_throughput_GB_per_second",
                        "lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second"},
                       {}};
  const std::optional<Histogram> current = SumHistogram(ParseClean(kLmcacheMp), store);
  REQUIRE(current.has_value());
  CHECK(current->count == 8);  // two engines
  CHECK(current->sum == 59.5);
  CHECK(current->buckets.at(10.0) == 7);
  const std::optional<Histogram> old = SumHistogram(ParseClean(kLmcacheMpOld), store);
  REQUIRE(old.has_value());
  CHECK(old->count == 3);
  CHECK(old->sum == 7.5);
  CHECK(old->buckets.size() == 2);
  // The _sum series alone reads the same through Sum.
  CHECK(Sum(ParseClean(kLmcacheMpOld), {{"lmcache_mp_l0_l1_store_throughput_GB_per_second_sum",
                                         "lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second_sum"},
                                        {}}) == 7.5);
}

TEST_CASE("Selectors: the first present name decides, every match pair must hold") {
  const Exposition e = ParseClean(
      "new_name{replica=\"a\",zone=\"z1\"} 1\n"
      "new_name{replica=\"b\",zone=\"z1\"} 2\n"
      "old_name{replica=\"c\",zone=\"z2\"} 40\n"
      "zero 0\n");
  CHECK(Sum(e, {{"new_name", "old_name"}, {}}) == 3);
  CHECK(Sum(e, {{"missing", "old_name"}, {}}) == 40);
  CHECK(Sum(e, {{"new_name"}, {{"zone", "z1"}, {"replica", "b"}}}) == 2);
  CHECK_FALSE(Sum(e, {{"new_name"}, {{"zone", "z1"}, {"replica", "c"}}}).has_value());
  // A present name whose samples do not match is not skipped for a rename: that would mix two
  // versions' series.
  CHECK_FALSE(Sum(e, {{"new_name", "old_name"}, {{"zone", "z2"}}}).has_value());
  CHECK_FALSE(Sum(e, {{"new_name"}, {{"absent_label", ""}}}).has_value());
  // Absent is not zero; zero is zero.
  CHECK_FALSE(Sum(e, {{"missing"}, {}}).has_value());
  CHECK_FALSE(Sum(e, {{}, {}}).has_value());
  CHECK(Sum(e, {{"zero"}, {}}) == 0);
  CHECK(Sum(e, {{"zero"}, {}}).has_value());
}

}  // namespace
}  // namespace kvbench::prometheus_text
