// kv-sample-rates: the other half of tests/e2e/prometheus_crosscheck.sh. It reads a scenario's
// samples.jsonl (one v1::Sample per line) and
//   openmetrics  writes the replicas' prefix-cache counters (local and external) as OpenMetrics
//                text, one series per source, timestamps = --epoch_s + --stretch x t_s, for
//                `promtool tsdb create-blocks-from`;
//   range        prints the first and last sample time as --epoch_s + --stretch x t_s ("START
//                END", seconds with ms); with --step_s, the start and end of the steps last -
//                --offset_s - k x --step_s instead: the PromQL range queries' start and end;
//   compare      computes our sum(rate(hits)), sum(rate(queries)) and hit-rate series
//                (agent/sampler/rate_math.h: rate per replica, then summed) at the steps
//                last t - --offset_s - k x --step_s, aligned to the end as the sampler's are, and
//                compares them with PromQL's answers (query_range JSON files hits.json,
//                queries.json and hit_rate.json in --promql_dir): prints every pair, exits 1 when
//                one differs by more than --tolerance (relative) or fewer than --min_points pairs
//                were compared.
// --stretch K (default 1) multiplies every time by K: a ratio of rates is the same in any time
// unit, and a window W x K - 1 ms on stretched times then selects what (t - W, t] does with
// extrapolation distances 1 ms / K shorter, where an unstretched W - 1 ms is a whole ms short
// (enough to flip PromQL's 1.1 x interval extrapolation test at a step now and then).
// Exit 2 on unreadable input or bad flags.
//
// Time is handled in integer milliseconds, as Prometheus stores it: sample times are rounded to
// the ms, and the rates are computed on ms timestamps (then scaled to per second), so that a
// sample lying exactly on a window's edge is on it for both sides (no floating-point drift of
// t - window). Each "replica-*" source is its own series, as in PromQL, whose sum(rate(x[W]))
// sums the per-series rates: exactly what the sampler computes.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agent/sampler/rate_math.h"

namespace {

using kvbench::sampler::ComputeHitRate;
using kvbench::sampler::Point;
using kvbench::sampler::ReplicaCounters;
using kvbench::sampler::StepGrid;
using kvbench::sampler::SummedRate;
using kvbench::sampler::WindowEdge;

constexpr char kHits[] = "vllm:prefix_cache_hits_total";
constexpr char kQueries[] = "vllm:prefix_cache_queries_total";
// LMCache's side as vLLM counts it (written for PromQL only; `compare` checks the local pair).
constexpr char kExternalHits[] = "vllm:external_prefix_cache_hits_total";
constexpr char kExternalQueries[] = "vllm:external_prefix_cache_queries_total";
constexpr char kReplicaPrefix[] = "replica-";
constexpr double kMsPerSecond = 1000;
constexpr int kMismatchExitCode = 1;
constexpr int kInputExitCode = 2;

int64_t ToMs(double seconds) { return std::llround(seconds * kMsPerSecond); }

struct Sample {
  std::string source;
  int64_t t_ms = 0;
  std::map<std::string, double> values;
};

// The replica samples of samples.jsonl in file order; nullopt (with a message) when unreadable.
std::optional<std::vector<Sample>> ReadReplicaSamples(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "kv-sample-rates: cannot read " << path << "\n";
    return std::nullopt;
  }
  std::vector<Sample> samples;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) {
      std::cerr << "kv-sample-rates: " << path << ":" << number << ": not a JSON object\n";
      return std::nullopt;
    }
    const std::string source = json.value("source", "");
    if (source.rfind(kReplicaPrefix, 0) != 0) continue;
    Sample sample{source, ToMs(json.value("t_s", 0.0)), {}};
    const nlohmann::json values = json.value("values", nlohmann::json::object());
    for (const auto& [key, value] : values.items()) {
      if (value.is_number()) sample.values[key] = value.get<double>();
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

// `key` per replica source, t in ms.
std::vector<std::vector<Point>> PerSource(const std::vector<Sample>& samples,
                                          const std::string& key) {
  std::map<std::string, std::vector<Point>> by_source;
  for (const Sample& sample : samples) {
    auto value = sample.values.find(key);
    if (value == sample.values.end()) continue;
    by_source[sample.source].push_back({static_cast<double>(sample.t_ms), value->second});
  }
  std::vector<std::vector<Point>> series;
  for (auto& [source, points] : by_source) series.push_back(std::move(points));
  return series;
}

// The first and last sample time in ms; nullopt without samples.
std::optional<std::pair<int64_t, int64_t>> Span(const std::vector<Sample>& samples) {
  if (samples.empty()) return std::nullopt;
  int64_t first = samples.front().t_ms, last = samples.front().t_ms;
  for (const Sample& sample : samples) {
    first = std::min(first, sample.t_ms);
    last = std::max(last, sample.t_ms);
  }
  return std::make_pair(first, last);
}

void WriteOpenMetrics(const std::vector<Sample>& samples, int64_t epoch_s, int64_t stretch) {
  for (const char* name : {kHits, kQueries, kExternalHits, kExternalQueries}) {
    const bool present = std::any_of(samples.begin(), samples.end(), [&](const Sample& sample) {
      return sample.values.count(name) > 0;
    });
    if (!present) continue;
    // OpenMetrics names the counter family without "_total" and its sample with it.
    const std::string family(name, std::string(name).size() - std::string("_total").size());
    std::printf("# TYPE %s counter\n", family.c_str());
    for (const Sample& sample : samples) {
      auto value = sample.values.find(name);
      if (value == sample.values.end()) continue;
      const int64_t t_ms = epoch_s * 1000 + stretch * sample.t_ms;
      std::printf("%s{source=\"%s\"} %.17g %lld.%03lld\n", name, sample.source.c_str(),
                  value->second, static_cast<long long>(t_ms / 1000),
                  static_cast<long long>(t_ms % 1000));
    }
  }
  std::printf("# EOF\n");
}

// PromQL's answer to a query_range: value by ms since the epoch base; non-finite values (0/0)
// and absent steps are left out.
std::optional<std::map<int64_t, double>> ReadPromQl(const std::string& path, int64_t epoch_s) {
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || json.value("status", "") != "success") {
    std::cerr << "kv-sample-rates: " << path
              << ": not a successful query_range answer: " << text.substr(0, 300) << "\n";
    return std::nullopt;
  }
  std::map<int64_t, double> values;
  for (const auto& series : json["data"]["result"]) {
    for (const auto& pair : series["values"]) {
      const double value = std::strtod(pair[1].get<std::string>().c_str(), nullptr);
      if (std::isfinite(value)) values[ToMs(pair[0].get<double>()) - epoch_s * 1000] = value;
    }
  }
  return values;
}

struct Series {
  std::vector<Point> hits, queries, hit_rate;  // t in ms, rates per second
};

Series OurSeries(const std::vector<Sample>& samples, double step_ms, double window_ms,
                 double offset_ms, WindowEdge edge) {
  const std::vector<std::vector<Point>> hits = PerSource(samples, kHits);
  const std::vector<std::vector<Point>> queries = PerSource(samples, kQueries);
  Series out;
  const auto span = Span(samples);
  if (!span) return out;
  const auto first = static_cast<double>(span->first);
  const auto last = static_cast<double>(span->second);
  // The sampler's own steps (offset 0): its very functions, StepGrid and ComputeHitRate.
  size_t points = 0;
  for (const std::vector<Point>& source : queries) points += source.size();
  for (const double t :
       StepGrid(first, last - offset_ms, step_ms, kvbench::sampler::StepsFor(points))) {
    const auto hit = SummedRate(hits, t, window_ms, edge);
    const auto query = SummedRate(queries, t, window_ms, edge);
    if (hit) out.hits.push_back({t, *hit * kMsPerSecond});
    if (query) out.queries.push_back({t, *query * kMsPerSecond});
    if (offset_ms != 0 && hit && query && *query > 0) out.hit_rate.push_back({t, *hit / *query});
  }
  if (offset_ms == 0) {
    std::vector<ReplicaCounters> replicas;
    for (std::size_t i = 0; i < hits.size() && i < queries.size(); ++i) {
      replicas.push_back({hits[i], queries[i]});
    }
    out.hit_rate = ComputeHitRate(replicas, step_ms, window_ms, edge).series;
  }
  return out;
}

struct Tally {
  int compared = 0;
  int failed = 0;
  double max_relative_error = 0;
};

// Prints ours vs PromQL at every step of either; counts a pair off by more than `tolerance`,
// or a step only PromQL answered, as a failure. Steps only we answered are printed, not failed.
void Compare(const char* name, const std::vector<Point>& ours,
             const std::map<int64_t, double>& promql, double tolerance, Tally* tally) {
  std::printf("%-9s %10s %16s %16s %10s\n", name, "t_s", "ours", "promql", "rel_err");
  std::map<int64_t, double> ours_by_ms;
  for (const Point& p : ours) ours_by_ms[std::llround(p.t_s)] = p.value;
  std::set<int64_t> steps;
  for (const auto& step : ours_by_ms) steps.insert(step.first);
  for (const auto& step : promql) steps.insert(step.first);
  for (const int64_t t : steps) {
    auto mine = ours_by_ms.find(t);
    auto theirs = promql.find(t);
    const double t_s = static_cast<double>(t) / kMsPerSecond;
    if (theirs == promql.end()) {
      std::printf("%-9s %10.3f %16.6g %16s %10s  (PromQL: no value, skipped)\n", "", t_s,
                  mine->second, "-", "-");
      continue;
    }
    if (mine == ours_by_ms.end()) {
      std::printf("%-9s %10.3f %16s %16.6g %10s  FAIL (ours: no value)\n", "", t_s, "-",
                  theirs->second, "-");
      ++tally->failed;
      continue;
    }
    const double scale = std::max(std::fabs(theirs->second), std::fabs(mine->second));
    const double error = scale == 0 ? 0 : std::fabs(mine->second - theirs->second) / scale;
    const bool ok = error <= tolerance;
    std::printf("%-9s %10.3f %16.6g %16.6g %10.2e%s\n", "", t_s, mine->second, theirs->second,
                error, ok ? "" : "  FAIL");
    ++tally->compared;
    if (!ok) ++tally->failed;
    tally->max_relative_error = std::max(tally->max_relative_error, error);
  }
}

WindowEdge ParseEdge(const std::string& edge) {
  return edge == "left_closed" ? WindowEdge::kLeftClosed : WindowEdge::kLeftOpen;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Our rate series from samples.jsonl, and their cross-check against PromQL"};
  app.require_subcommand(1);
  std::string samples_path;
  int64_t epoch_s = 0;
  auto* openmetrics = app.add_subcommand("openmetrics", "samples.jsonl as OpenMetrics text");
  auto* range = app.add_subcommand("range", "the first and last sample time, epoch seconds");
  auto* compare = app.add_subcommand("compare", "our series vs PromQL's query_range answers");
  for (CLI::App* command : {openmetrics, range, compare}) {
    command->add_option("--samples", samples_path, "samples.jsonl")->required();
    command->add_option("--epoch_s", epoch_s, "epoch seconds of t_s = 0")->required();
  }
  int64_t stretch = 1;
  for (CLI::App* command : {openmetrics, range}) {
    command->add_option("--stretch", stretch, "times x this")->check(CLI::Range(1, 1000000));
  }
  double step_s = 0, window_s = 0, offset_s = 0, tolerance = 0.01;
  double range_step_s = 0, range_offset_s = 0;
  range->add_option("--step_s", range_step_s, "print the steps' start and end at this step");
  range->add_option("--offset_s", range_offset_s, "steps end this long before the last sample");
  int min_points = 5;
  std::string edge = "left_open", promql_dir;
  compare->add_option("--step_s", step_s, "step = the sampling period")->required();
  compare->add_option("--window_s", window_s, "rate window")->required();
  compare->add_option("--offset_s", offset_s, "steps end this long before the last sample");
  compare->add_option("--edge", edge, "window edge")
      ->check(CLI::IsMember({"left_open", "left_closed"}));
  compare->add_option("--promql_dir", promql_dir, "hits.json, queries.json, hit_rate.json")
      ->required();
  compare->add_option("--tolerance", tolerance, "relative");
  compare->add_option("--min_points", min_points, "fewest compared pairs per series");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kInputExitCode;
  }

  const std::optional<std::vector<Sample>> samples = ReadReplicaSamples(samples_path);
  if (!samples) return kInputExitCode;
  if (openmetrics->parsed()) {
    WriteOpenMetrics(*samples, epoch_s, stretch);
    return 0;
  }
  const auto span = Span(*samples);
  if (!span || span->second <= span->first) {
    std::cerr << "kv-sample-rates: fewer than 2 scrapes in " << samples_path << "\n";
    return kInputExitCode;
  }
  if (range->parsed()) {
    int64_t first = span->first, last = span->second;
    if (range_step_s > 0) {  // the steps last - offset - k x step that lie after the first
      const int64_t step = ToMs(range_step_s);
      last -= ToMs(range_offset_s);
      first = last - (last - first) / step * step;
    }
    auto print = [epoch_s, stretch](int64_t t_ms) {
      const int64_t ms = epoch_s * 1000 + stretch * t_ms;
      std::printf("%lld.%03lld", static_cast<long long>(ms / 1000),
                  static_cast<long long>(ms % 1000));
    };
    print(first);
    std::printf(" ");
    print(last);
    std::printf("\n");
    return 0;
  }
  const Series ours =
      OurSeries(*samples, static_cast<double>(ToMs(step_s)), static_cast<double>(ToMs(window_s)),
                static_cast<double>(ToMs(offset_s)), ParseEdge(edge));
  int status = 0;
  const std::pair<const char*, const std::vector<Point>*> series[] = {
      {"hits", &ours.hits}, {"queries", &ours.queries}, {"hit_rate", &ours.hit_rate}};
  for (const auto& [name, points] : series) {
    const auto promql = ReadPromQl(promql_dir + "/" + name + ".json", epoch_s);
    if (!promql) return kInputExitCode;
    Tally tally;
    Compare(name, *points, *promql, tolerance, &tally);
    std::printf("%s: %d compared, %d failed, max rel err %.2e (edge %s, offset %g s)\n", name,
                tally.compared, tally.failed, tally.max_relative_error, edge.c_str(), offset_s);
    if (tally.failed > 0 || tally.compared < min_points) status = kMismatchExitCode;
  }
  return status;
}
