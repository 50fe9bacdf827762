#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace kvbench::prometheus_text {

using Labels = std::vector<std::pair<std::string, std::string>>;  // in exposition order

// One sample line: `name{labels} value [timestamp_ms]`. For histograms the name keeps its
// suffix (`_bucket` with its `le` label, `_sum`, `_count`); counters keep `_total`/`_created`.
struct Sample {
  std::string name;
  Labels labels;
  double value = 0;  // NaN, +Inf and -Inf as written
  std::optional<int64_t> timestamp_ms;

  // The value of label `name`, if present.
  std::optional<absl::string_view> Label(absl::string_view name) const;
};

enum class MetricType { kUntyped, kCounter, kGauge, kHistogram, kSummary };

// "untyped", "counter", "gauge", "histogram", "summary": as written on a # TYPE line.
absl::string_view MetricTypeName(MetricType type);

struct Family {
  MetricType type = MetricType::kUntyped;
  std::string help;  // unescaped
};

struct ParseError {
  int line = 0;  // 1-based
  std::string message;
};

// A second # HELP or # TYPE line for a name already declared: kept apart from the errors, since
// real exporters write them (LMCache exports lmcache_mp_l1_usage_ratio as a gauge and as a
// histogram of the same name: lmcache/v1/mp_observability/subscribers/metrics/
// l1_eviction_loop.py@6e0ccd69 beside L1Manager's gauge). The first declaration stays.
struct Redeclaration {
  int line = 0;  // 1-based
  std::string name;
};

// A whole scrape, parsed. Malformed lines are skipped and reported; the rest is kept.
struct Exposition {
  std::vector<Sample> samples;             // in exposition order
  std::map<std::string, Family> families;  // by the # TYPE / # HELP name
  std::vector<ParseError> errors;
  std::vector<Redeclaration> redeclarations;
};

// The Prometheus text exposition format 0.0.4 (what vLLM and LMCache serve): # HELP and # TYPE
// lines (other comments ignored), label values with \\, \" and \n escapes, values as Go's
// ParseFloat reads them (NaN, +Inf, -Inf, exponents), optional integer timestamps, metric names
// with ':'. Never throws; a malformed line becomes a ParseError naming its line number.
// As in Prometheus's own parser, a repeated label name and an unknown escape are errors; unlike
// it, a trailing '\r' is tolerated, hex floats are refused, and a second HELP or TYPE line for a
// name is not an error but a Redeclaration (the first declaration stays, and samples are read by
// name: the gauge `x` and the histogram's `x_bucket`/`x_sum`/`x_count` do not mix).
Exposition Parse(absl::string_view text);

// The family that declares a sample name: the name itself, else the name without one suffix that
// the text format appends (`_total`, `_created`, `_bucket`, `_sum`, `_count`), so that
// prometheus_client's `# TYPE vllm:prefix_cache_queries counter` is found for the sample
// `vllm:prefix_cache_queries_total`. nullptr when no # TYPE or # HELP line declares it.
const Family* FindFamily(const Exposition& exposition, absl::string_view sample_name);

// Which samples a query takes: the first of `names` that has any sample (version renames:
// {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}), restricted to samples whose labels
// include every `match` pair.
struct Selector {
  std::vector<std::string> names;
  Labels match;
};

// Sum of the selected samples' values across label sets (replicas, engines), or nullopt when no
// sample matches (absent is not zero).
std::optional<double> Sum(const Exposition& exposition, const Selector& selector);

// The selected histogram's buckets summed across label sets: upper bound ("le") → cumulative
// count, plus its _sum and _count, when `base_names` (without suffix, renames allowed) has any.
struct Histogram {
  std::map<double, double> buckets;  // le → cumulative count (+Inf included)
  double sum = 0;
  double count = 0;
};
std::optional<Histogram> SumHistogram(const Exposition& exposition, const Selector& base_names);

}  // namespace kvbench::prometheus_text
