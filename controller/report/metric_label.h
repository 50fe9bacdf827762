#pragma once

// How a result field reads on a chart: "latency.ttft_p95_s" becomes "TTFT p95" in
// ms, "lmcache.lookup_hit_rate" "LMCache lookup hit rate" in %, a simulated engine's times
// "simulated ms". Pure.

#include <string>

namespace kvbench::report {

struct MetricLabel {
  std::string name;  // "TTFT p95"
  std::string unit;  // "simulated ms"; "" for a count
  double scale = 1;  // shown value = stored value x scale
  // "TTFT p95 (simulated ms)"
  std::string AxisLabel() const;
};

// `field` is a column of `kvctl results --output csv` (e.g. "latency.ttft_p95_s",
// "capacity.users"); `simulated`: its times and rates are in simulated seconds.
MetricLabel LabelOfMetric(const std::string& field, bool simulated);

}  // namespace kvbench::report
