// Sampler over a FakeHttpClient: the result's KV usage mean/max and prefix-cache token counters
// from scripted /metrics scrapes (before, periodic, after), as replay_window.h defines them.

#include "agent/sampler/sampler.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/fakes/fake_http_client.h"

namespace kvbench::sampler {
namespace {

using testing::FakeHttpClient;

struct Replica {
  double usage;
  double queries;
  double hits;
  double external_queries;
  double external_hits;
};

std::string VllmMetrics(const Replica& r, bool connector) {
  const std::string labels = "{engine=\"0\",model_name=\"llama\"}";
  std::string text = absl::StrCat(
      "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc", labels, " ", r.usage,
      "\n# TYPE vllm:prefix_cache_queries counter\nvllm:prefix_cache_queries_total", labels, " ",
      r.queries, "\n# TYPE vllm:prefix_cache_hits counter\nvllm:prefix_cache_hits_total", labels,
      " ", r.hits, "\n");
  if (connector) {
    absl::StrAppend(&text,
                    "# TYPE vllm:external_prefix_cache_queries counter\n"
                    "vllm:external_prefix_cache_queries_total",
                    labels, " ", r.external_queries,
                    "\n# TYPE vllm:external_prefix_cache_hits counter\n"
                    "vllm:external_prefix_cache_hits_total",
                    labels, " ", r.external_hits, "\n");
  }
  return text;
}

struct Scrape {
  const char* kind;
  double t_s;
  std::vector<Replica> replicas;  // one per replica, in target order
};

v1::EngineMetrics Run(const std::vector<Scrape>& scrapes, bool connector) {
  FakeHttpClient http;
  std::vector<ScrapeTarget> targets = {{"replica-0", "http://127.0.0.2:8000/metrics"},
                                       {"replica-1", "http://127.0.0.3:8000/metrics"}};
  for (const Scrape& scrape : scrapes) {
    for (size_t i = 0; i < targets.size(); ++i) {
      http.EnqueueResponse(targets[i].url, FakeHttpClient::MakeResponse(
                                               200, VllmMetrics(scrape.replicas[i], connector)));
    }
  }
  Sampler::Options options;
  options.period_s = 1;
  Sampler sampler(&http, targets, options, [](const v1::Sample&) {});
  for (const Scrape& scrape : scrapes) sampler.Scrape(scrape.kind, scrape.t_s);
  return sampler.EngineResult();
}

TEST_CASE("Sampler: KV usage over the in-replay scrapes, counters from before to after",
          "[sampler]") {
  // Two replicas; idle before/after (usage 0), busy in between. Replica 1 restarts between the
  // second periodic scrape and "after" (its counters drop): its pre-reset value is added back.
  const std::vector<Scrape> scrapes = {
      {"before", 0, {{0.0, 50, 10, 40, 0}, {0.0, 20, 0, 20, 0}}},
      {"periodic", 1, {{0.4, 1050, 410, 640, 300}, {0.6, 820, 300, 520, 256}}},
      {"periodic", 2, {{0.2, 2050, 810, 1240, 556}, {0.8, 1620, 600, 1020, 512}}},
      {"after", 3, {{0.0, 2550, 1010, 1540, 812}, {0.0, 400, 100, 300, 256}}},
  };
  const v1::EngineMetrics engine = Run(scrapes, /*connector=*/true);
  // Mean of (0.4+0.6)/2 and (0.2+0.8)/2; the idle before/after scrapes would have made it 0.25.
  REQUIRE(engine.has_kv_cache_usage_mean());
  CHECK(engine.kv_cache_usage_mean() == Approx(0.5));
  REQUIRE(engine.has_kv_cache_usage_max());
  CHECK(engine.kv_cache_usage_max() == Approx(0.8));
  // Replica 0: after - before. Replica 1: 1620 - 20 before its reset, then 400 after it.
  CHECK(engine.prefix_cache_query_tokens() == (2550 - 50) + (1620 - 20 + 400));
  CHECK(engine.prefix_cache_hit_tokens() == (1010 - 10) + (600 - 0 + 100));
  CHECK(engine.external_query_tokens() == (1540 - 40) + (1020 - 20 + 300));
  CHECK(engine.external_hit_tokens() == (812 - 0) + (512 - 0 + 256));
}

TEST_CASE("Sampler: no in-replay scrape and no connector leave the fields absent", "[sampler]") {
  const std::vector<Scrape> scrapes = {
      {"before", 0, {{0.3, 0, 0, 0, 0}, {0.3, 0, 0, 0, 0}}},
      {"after", 1, {{0.1, 500, 200, 0, 0}, {0.1, 300, 100, 0, 0}}},
  };
  const v1::EngineMetrics engine = Run(scrapes, /*connector=*/false);
  CHECK_FALSE(engine.has_kv_cache_usage_mean());  // absent, never 0
  CHECK_FALSE(engine.has_kv_cache_usage_max());
  CHECK(engine.prefix_cache_query_tokens() == 800);
  CHECK(engine.prefix_cache_hit_tokens() == 300);
  CHECK_FALSE(engine.has_external_query_tokens());  // GPU tier: vLLM exports no such counter
  CHECK_FALSE(engine.has_external_hit_tokens());
}

TEST_CASE("Sampler records a scrape's time to the millisecond, as Prometheus stores it",
          "[sampler]") {
  FakeHttpClient http;
  const ScrapeTarget target{"replica-0", "http://127.0.0.2:8000/metrics"};
  const Replica idle{0.0, 0, 0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    http.EnqueueResponse(target.url,
                         FakeHttpClient::MakeResponse(200, VllmMetrics(idle, /*connector=*/false)));
  }
  Sampler::Options options;
  options.period_s = 1;
  std::vector<double> recorded;
  Sampler sampler(&http, {target}, options,
                  [&recorded](const v1::Sample& sample) { recorded.push_back(sample.t_s()); });
  sampler.Scrape("before", 0);
  sampler.Scrape("periodic", 1.0004);
  sampler.Scrape("after", 2.0006);
  CHECK(recorded == std::vector<double>{0.0, 1.0, 2.001});
  // Due compares the recorded time: one period after 1.0 (not 1.0004).
  CHECK(sampler.Due(2.0));
}

}  // namespace
}  // namespace kvbench::sampler
