// kvsim-vllm's step lateness over a replay: PromQL's histogram_quantile on
// hand-computed buckets, and the Sampler's before → after increases of the scraped histogram,
// summed over replicas, with the host's CPU counters kept beside the scrapes.

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/sampler/host_cpu_sample.h"
#include "agent/sampler/metric_catalog.h"
#include "agent/sampler/sampler.h"
#include "agent/sampler/sim_step_lateness.h"
#include "tests/fakes/fake_http_client.h"

namespace kvbench::sampler {
namespace {

using testing::FakeHttpClient;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST_CASE("HistogramQuantile interpolates within the bucket as PromQL does", "[sampler][host]") {
  // 100 observations: 50 up to 1 ms, 40 more up to 2 ms, 9 more up to 5 ms, 1 beyond.
  const std::map<double, double> buckets = {{0.001, 50}, {0.002, 90}, {0.005, 99}, {kInf, 100}};
  CHECK(*HistogramQuantile(0.5, buckets) == Approx(0.001));                   // rank 50: bucket 1
  CHECK(*HistogramQuantile(0.7, buckets) == Approx(0.001 + 0.001 * 0.5));     // rank 70: half way
  CHECK(*HistogramQuantile(0.95, buckets) == Approx(0.002 + 0.003 * 5 / 9));  // rank 95
  CHECK(*HistogramQuantile(0.995, buckets) == Approx(0.005));  // in +Inf: the highest bound
  CHECK(*HistogramQuantile(0.25, buckets) == Approx(0.0005));  // first bucket from 0
  CHECK_FALSE(HistogramQuantile(0.5, {{0.001, 0}, {kInf, 0}}).has_value());  // no observation
  CHECK_FALSE(HistogramQuantile(0.5, {{0.001, 3}}).has_value());             // no +Inf bucket
}

TEST_CASE("SummarizeStepLateness: steps, mean and p99, and nothing without steps",
          "[sampler][host]") {
  HistogramIncrease increase;
  increase.count = 200;
  increase.sum = 0.05;
  increase.buckets = {{0.0001, 100}, {0.001, 190}, {0.01, 198}, {kInf, 200}};
  const std::optional<SimStepLateness> late = SummarizeStepLateness(increase);
  REQUIRE(late.has_value());
  CHECK(late->steps == 200);
  CHECK(late->mean_s == Approx(0.00025));
  CHECK(*late->p90_s == Approx(0.0001 + 0.0009 * 80 / 90));  // rank 180 in the 0.1-1 ms bucket
  CHECK(*late->p99_s == Approx(0.01));  // rank 198: the top of the 10 ms bucket
  CHECK_FALSE(SummarizeStepLateness(HistogramIncrease{}).has_value());
}

// One replica's /metrics with the lateness histogram: `counts` cumulative per BucketsOf().
std::string LatenessMetrics(const std::vector<double>& counts, double sum) {
  const std::string labels = "engine=\"0\",model_name=\"llama\"";
  const char* bounds[] = {"0.001", "0.01", "+Inf"};
  std::string text = "# TYPE kvsim:step_lateness_seconds histogram\n";
  for (size_t i = 0; i < counts.size(); ++i) {
    absl::StrAppend(&text, "kvsim:step_lateness_seconds_bucket{", labels, ",le=\"", bounds[i],
                    "\"} ", counts[i], "\n");
  }
  absl::StrAppend(&text, "kvsim:step_lateness_seconds_sum{", labels, "} ", sum, "\n",
                  "kvsim:step_lateness_seconds_count{", labels, "} ", counts.back(), "\n");
  return text;
}

TEST_CASE("Sampler: step lateness from before to after, summed over replicas, kept in samples",
          "[sampler][host]") {
  FakeHttpClient http;
  const std::vector<ScrapeTarget> targets = {{"replica-0", "http://127.0.0.2:8000/metrics"},
                                             {"replica-1", "http://127.0.0.3:8000/metrics"}};
  // Replica 0: 10 steps before the replay (the warm-up), 110 after: 100 in it, 90 of them
  // within 1 ms. Replica 1: 0 before, 100 after, all within 10 ms.
  http.EnqueueResponse(targets[0].url,
                       FakeHttpClient::MakeResponse(200, LatenessMetrics({10, 10, 10}, 0.001)));
  http.EnqueueResponse(targets[1].url,
                       FakeHttpClient::MakeResponse(200, LatenessMetrics({0, 0, 0}, 0)));
  http.EnqueueResponse(targets[0].url,
                       FakeHttpClient::MakeResponse(200, LatenessMetrics({100, 110, 110}, 0.101)));
  http.EnqueueResponse(targets[1].url,
                       FakeHttpClient::MakeResponse(200, LatenessMetrics({50, 100, 100}, 0.2)));
  std::vector<v1::Sample> samples;
  Sampler sampler(&http, targets, Sampler::Options{},
                  [&](const v1::Sample& sample) { samples.push_back(sample); });
  sampler.Scrape("before", 0);
  sampler.Record(HostCpuSample("before", 0, telemetry::CpuTimes{100, 0, 50, 800}));
  sampler.Scrape("after", 1);
  const std::optional<SimStepLateness> late = sampler.StepLateness();
  REQUIRE(late.has_value());
  CHECK(late->steps == 200);
  CHECK(late->mean_s == Approx((0.1 + 0.2) / 200));
  // 200 steps: 90 + 50 within 1 ms, 100 + 100 within 10 ms; rank 198 in the 1-10 ms bucket.
  CHECK(*late->p90_s == Approx(0.001 + 0.009 * (180.0 - 140) / 60));
  CHECK(*late->p99_s == Approx(0.001 + 0.009 * (198.0 - 140) / 60));
  // What samples.jsonl holds: each bucket by its bound, and the host's counters.
  REQUIRE(samples.size() == 5);
  CHECK(samples[0].values().at(BucketKey(keys::kSimStepLateness, 0.001)) == 10);
  CHECK(samples[0].values().count("kvsim:step_lateness_seconds_bucket{le=\"+Inf\"}") == 1);
  CHECK(samples[2].source() == kHostSource);
  CHECK(samples[2].values().at("cpu_idle_ticks") == 800);
  CHECK(samples[2].values().size() == 8);
}

TEST_CASE("Sampler: no lateness histogram (a real vLLM) is not measured", "[sampler][host]") {
  FakeHttpClient http;
  const std::vector<ScrapeTarget> targets = {{"replica-0", "http://127.0.0.2:8000/metrics"}};
  for (int i = 0; i < 2; ++i) {
    http.EnqueueResponse(targets[0].url, FakeHttpClient::MakeResponse(200, "vllm:x 1\n"));
  }
  Sampler sampler(&http, targets, Sampler::Options{}, [](const v1::Sample&) {});
  sampler.Scrape("before", 0);
  sampler.Scrape("after", 1);
  CHECK_FALSE(sampler.StepLateness().has_value());
  CHECK(BucketBound(keys::kSimStepLateness, "kvsim:step_lateness_seconds_bucket{le=\"0.5\"}") ==
        0.5);
  CHECK_FALSE(BucketBound(keys::kSimStepLateness, "kvsim:step_lateness_seconds_sum").has_value());
}

}  // namespace
}  // namespace kvbench::sampler
