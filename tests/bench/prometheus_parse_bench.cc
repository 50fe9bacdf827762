// Prometheus text parser figures (common/prometheus/exposition.h): parse throughput on a ~1 MB
// vLLM V1 scrape (the metrics of many engines and models, written as prometheus_client writes
// them), and the cost of the selections the sampler makes on it. Prints, asserts nothing.
//
//   build/bin/kv_bench_prometheus_parse [target_bytes, default 1048576]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/prometheus/exposition.h"
#include "tests/bench/bench_stats.h"

namespace {

namespace prom = ::kvbench::prometheus_text;
using Clock = std::chrono::steady_clock;

constexpr size_t kDefaultTargetBytes = size_t{1} << 20;
constexpr double kMinSecondsPerFigure = 1.0;
constexpr int kMinRepetitions = 5;

const char* const kGauges[] = {"vllm:num_requests_running", "vllm:num_requests_waiting",
                               "vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc"};
const char* const kCounters[] = {"vllm:prefix_cache_queries",
                                 "vllm:prefix_cache_hits",
                                 "vllm:external_prefix_cache_queries",
                                 "vllm:external_prefix_cache_hits",
                                 "vllm:prompt_tokens",
                                 "vllm:generation_tokens",
                                 "vllm:num_preemptions"};
const char* const kLatencyHistograms[] = {
    "vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds",
    "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds",
    "vllm:request_inference_time_seconds"};
const double kLatencyBuckets[] = {0.3, 0.5, 0.8, 1,  1.5, 2,   2.5, 5,   10,   15,  20,
                                  30,  40,  50,  60, 120, 240, 480, 960, 1920, 7680};
const double kTtftBuckets[] = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
                               1,     2.5,   5,    7.5,  10,   20,   40,   80,  160,  640, 2560};

void AppendHistogram(const std::string& name, const std::string& labels, const double* bounds,
                     size_t bound_count, int seed, std::string* out) {
  double cumulative = 0;
  for (size_t b = 0; b < bound_count; ++b) {
    cumulative += (seed + b) % 7;
    absl::StrAppend(out, name, "_bucket{", labels, ",le=\"", bounds[b], "\"} ", cumulative, ".0\n");
  }
  absl::StrAppend(out, name, "_bucket{", labels, ",le=\"+Inf\"} ", cumulative, ".0\n");
  absl::StrAppend(out, name, "_count{", labels, "} ", cumulative, ".0\n");
  absl::StrAppend(out, name, "_sum{", labels, "} ", cumulative * 0.731, "\n");
}

// One scrape's worth of vLLM V1 series for each (model, engine) label set, grown until the text
// reaches `target_bytes`.
std::string MakePayload(size_t target_bytes, int* label_sets) {
  std::vector<std::string> labels;
  std::string text;
  while (text.size() < target_bytes) {
    const int n = static_cast<int>(labels.size());
    labels.push_back(
        absl::StrCat("engine=\"", n % 8, "\",model_name=\"org/model-", n / 8, "-70B-Instruct\""));
    text.clear();
    for (const char* gauge : kGauges) {
      absl::StrAppend(&text, "# HELP ", gauge, " A gauge.\n# TYPE ", gauge, " gauge\n");
      for (size_t i = 0; i < labels.size(); ++i) {
        absl::StrAppend(&text, gauge, "{", labels[i], "} ", (i % 10) / 10.0, "\n");
      }
    }
    for (const char* counter : kCounters) {
      absl::StrAppend(&text, "# HELP ", counter, "_total A counter.\n# TYPE ", counter,
                      "_total counter\n");
      for (size_t i = 0; i < labels.size(); ++i) {
        absl::StrAppend(&text, counter, "_total{", labels[i], "} ", i * 4096 + 17, ".0\n");
      }
      absl::StrAppend(&text, "# TYPE ", counter, "_created gauge\n");
      for (size_t i = 0; i < labels.size(); ++i) {
        absl::StrAppend(&text, counter, "_created{", labels[i], "} 1.7526184713e+09\n");
      }
    }
    absl::StrAppend(&text, "# TYPE vllm:time_to_first_token_seconds histogram\n");
    for (size_t i = 0; i < labels.size(); ++i) {
      AppendHistogram("vllm:time_to_first_token_seconds", labels[i], kTtftBuckets,
                      std::size(kTtftBuckets), static_cast<int>(i), &text);
    }
    for (const char* histogram : kLatencyHistograms) {
      absl::StrAppend(&text, "# HELP ", histogram, " A histogram.\n# TYPE ", histogram,
                      " histogram\n");
      for (size_t i = 0; i < labels.size(); ++i) {
        AppendHistogram(histogram, labels[i], kLatencyBuckets, std::size(kLatencyBuckets),
                        static_cast<int>(i), &text);
      }
    }
  }
  *label_sets = static_cast<int>(labels.size());
  return text;
}

// Runs `work` until kMinSecondsPerFigure and kMinRepetitions are both reached; seconds per run.
template <typename Work>
std::vector<double> Time(Work work) {
  std::vector<double> seconds;
  const auto start = Clock::now();
  while (seconds.size() < kMinRepetitions ||
         std::chrono::duration<double>(Clock::now() - start).count() < kMinSecondsPerFigure) {
    const auto begin = Clock::now();
    work();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - begin).count());
  }
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t target = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : kDefaultTargetBytes;
  int label_sets = 0;
  const std::string text = MakePayload(target, &label_sets);
  const prom::Exposition parsed = prom::Parse(text);
  std::printf("payload: %.2f MB, %zu samples, %zu families, %d label sets, %zu parse errors\n",
              text.size() / 1e6, parsed.samples.size(), parsed.families.size(), label_sets,
              parsed.errors.size());

  size_t samples = 0;
  std::vector<double> parse = Time([&] { samples += prom::Parse(text).samples.size(); });
  const double p50 = kvbench::bench::Percentile(parse, 50);
  const double best = kvbench::bench::Percentile(parse, 0);
  std::printf("parse: %zu runs, p50 %.2f ms = %.0f MB/s (%.1f M samples/s), best %.0f MB/s\n",
              parse.size(), p50 * 1e3, text.size() / p50 / 1e6, parsed.samples.size() / p50 / 1e6,
              text.size() / best / 1e6);

  const prom::Selector usage{{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"},
                             {{"engine", "3"}}};
  const prom::Selector hits{{"vllm:prefix_cache_hits_total"}, {}};
  const prom::Selector prefill{{"vllm:request_prefill_time_seconds"}, {}};
  volatile double sink = 0;  // keeps the selections from being optimized away
  std::vector<double> sum = Time([&] {
    sink = sink + prom::Sum(parsed, usage).value_or(0) + prom::Sum(parsed, hits).value_or(0);
  });
  std::vector<double> histogram = Time(
      [&] { sink = sink + prom::SumHistogram(parsed, prefill).value_or(prom::Histogram{}).count; });
  std::printf("select: two Sum() calls p50 %.1f us, one SumHistogram() p50 %.1f us\n",
              kvbench::bench::Percentile(sum, 50) * 1e6,
              kvbench::bench::Percentile(histogram, 50) * 1e6);
  return samples > 0 ? 0 : 1;
}
