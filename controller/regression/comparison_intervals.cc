#include "controller/regression/comparison_intervals.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kvbench::regression {
namespace {

// The regression metric a comparison row shows, when the row is measured per request (a judged
// metric: its bootstrap gives the interval).
std::optional<RegressionMetric> RowMetric(const results::ComparisonRow& row) {
  return RegressionMetricFromKey(row.key);
}

// The column's succeeded scenarios as bootstrap samples; nullopt when one of them has no rows
// (a partial pool would weigh the repeats unevenly).
std::optional<std::vector<RunSample>> SamplesOf(
    const results::ComparisonColumn& column,
    const std::map<std::string, const results::ScenarioRun*>& runs, const RowsByScenario& rows) {
  std::vector<RunSample> samples;
  for (const std::string& id : column.scenario_ids) {
    const auto run = runs.find(id);
    if (run == runs.end() || !run->second->result.has_value()) continue;
    const auto found = rows.find(id);
    if (found == rows.end()) return std::nullopt;
    const v1::ScenarioResult& result = *run->second->result;
    const double scale =
        result.has_sim_time_scale() && result.sim_time_scale() > 0 ? result.sim_time_scale() : 1;
    samples.push_back(GroupByUser(id, found->second, scale));
  }
  if (samples.empty()) return std::nullopt;
  return samples;
}

void AttachToGroup(const std::map<std::string, const results::ScenarioRun*>& runs,
                   const RowsByScenario& rows, const DiffOptions& options,
                   results::ComparisonGroup* group) {
  group->interval_note =
      group->repeats <= 1
          ? kOneRepeatNote
          : absl::StrCat(group->repeats,
                         " repeats per tier: 95% intervals from a bootstrap over the repeats, "
                         "then the virtual users within each");
  if (group->baseline < 0) return;
  const std::optional<std::vector<RunSample>> gpu =
      SamplesOf(group->columns[group->baseline], runs, rows);
  if (!gpu.has_value()) {
    group->interval_note = "no request rows for the GPU tier: deltas without intervals";
    return;
  }
  for (size_t i = 0; i < group->columns.size(); ++i) {
    if (static_cast<int>(i) == group->baseline) continue;
    const std::optional<std::vector<RunSample>> tier = SamplesOf(group->columns[i], runs, rows);
    if (!tier.has_value()) continue;
    const std::string stream =
        absl::StrCat(group->comparison_group, "/", v1::Tier_Name(group->columns[i].tier));
    const std::vector<MetricDiff> diffs = BootstrapDiff(*gpu, *tier, options, StableHash(stream));
    for (results::ComparisonRow& row : group->rows) {
      const std::optional<RegressionMetric> metric = RowMetric(row);
      if (!metric.has_value()) continue;
      const MetricDiff& diff = diffs[static_cast<size_t>(*metric)];
      const double scale = InfoOf(*metric).shown_scale;
      if (diff.before.has_value()) row.values[group->baseline] = *diff.before * scale;
      if (diff.after.has_value()) row.values[i] = *diff.after * scale;
      row.deltas[i] = diff.change;
      if (diff.change.has_value() && diff.low.has_value() && diff.high.has_value()) {
        row.intervals[i] = results::DeltaInterval{*diff.low, *diff.high};
      }
    }
  }
}

}  // namespace

void AttachDeltaIntervals(const std::vector<results::ScenarioRun>& runs, const RowsByScenario& rows,
                          const DiffOptions& options,
                          std::vector<results::ComparisonGroup>* groups) {
  std::map<std::string, const results::ScenarioRun*> by_id;
  for (const results::ScenarioRun& run : runs) by_id[run.scenario.scenario_id()] = &run;
  for (results::ComparisonGroup& group : *groups) AttachToGroup(by_id, rows, options, &group);
}

}  // namespace kvbench::regression
