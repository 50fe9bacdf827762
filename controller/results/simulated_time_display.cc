#include "controller/results/simulated_time_display.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kvbench::results {

bool IsSimulated(const v1::ScenarioResult& result) {
  return result.has_sim_time_scale() && result.sim_time_scale() > 0;
}

const v1::LatencyMetrics& ShownLatency(const v1::ScenarioResult& result) {
  return IsSimulated(result) ? result.simulated_latency() : result.latency();
}

std::string SimulatedTimeNote(const std::vector<const v1::ScenarioResult*>& results) {
  std::set<double> scales;
  for (const v1::ScenarioResult* result : results) {
    if (result != nullptr && IsSimulated(*result)) scales.insert(result->sim_time_scale());
  }
  if (scales.empty()) return "";
  std::vector<std::string> parts;
  for (double scale : scales) {
    parts.push_back(absl::StrFormat("sim_time_scale %g: observed × %g", scale, 1.0 / scale));
  }
  return absl::StrCat("times in simulated seconds (", absl::StrJoin(parts, "; "), ")");
}

}  // namespace kvbench::results
