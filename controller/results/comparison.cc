#include "controller/results/comparison.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/results/comparison_caveats.h"
#include "controller/results/few_scrapes.h"
#include "controller/results/metric_catalog.h"
#include "controller/results/simulated_time_display.h"
#include "controller/results/validity.h"
#include "controller/results/validity_text.h"

namespace kvbench::results {
namespace {

std::optional<double> Delta(DeltaKind kind, std::optional<double> value,
                            std::optional<double> base) {
  if (!value.has_value() || !base.has_value()) return std::nullopt;
  if (kind == DeltaKind::kPercentagePoints) return *value - *base;
  if (*base == 0) return std::nullopt;
  return (*value - *base) / *base * 100.0;
}

int TierOrder(v1::Tier tier) {
  switch (tier) {
    case v1::GPU:
      return 0;
    case v1::CPU_RAM:
      return 1;
    case v1::NVME:
      return 2;
    default:
      return 3;
  }
}

// The mean of the metric's shown value over the repeats that succeeded and have it; null when
// none has.
std::optional<double> MeanOverRepeats(const MetricInfo& metric,
                                      const std::vector<const ScenarioRun*>& repeats) {
  double sum = 0;
  int count = 0;
  for (const ScenarioRun* run : repeats) {
    if (!run->result.has_value()) continue;
    if (std::optional<double> value = ShownValue(metric, *run->result)) {
      sum += *value;
      ++count;
    }
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

// ComparisonGroup::scrape_note: per tier, the in-replay scrapes its KV usage mean rests on
// (summed over its repeats), when any of its runs had fewer than kFewScrapes.
std::string ScrapeNote(const std::vector<std::vector<const ScenarioRun*>>& tiers) {
  std::vector<std::string> few;
  for (const std::vector<const ScenarioRun*>& tier_runs : tiers) {
    int scrapes = 0;
    bool any_few = false;
    for (const ScenarioRun* run : tier_runs) {
      if (!run->result || !run->result->engine().has_kv_cache_usage_scrapes()) continue;
      scrapes += run->result->engine().kv_cache_usage_scrapes();
      any_few = any_few || run->result->engine().kv_cache_usage_scrapes() < kFewScrapes;
    }
    if (any_few) {
      few.push_back(absl::StrCat(TierName(tier_runs.front()->scenario.tier()), " ", scrapes));
    }
  }
  if (few.empty()) return "";
  return absl::StrCat("KV cache usage means rest on few in-replay scrapes (",
                      absl::StrJoin(few, ", "), "): a mean of fewer than ", kFewScrapes,
                      " moves with where the scrapes fell; a shorter sampling period_s gives more");
}

}  // namespace

std::vector<ComparisonGroup> BuildComparison(const std::vector<ScenarioRun>& runs,
                                             const std::vector<v1::Validity>& validity) {
  std::map<std::pair<int32_t, std::string>, std::vector<const ScenarioRun*>> grouped;
  for (const ScenarioRun& run : runs) {
    grouped[{run.scenario.concurrency(), ComparisonGroupOf(run.scenario)}].push_back(&run);
  }
  std::vector<ComparisonGroup> groups;
  for (auto& [key, members] : grouped) {
    ComparisonGroup& group = groups.emplace_back();
    group.concurrency = key.first;
    group.comparison_group = key.second;
    for (const v1::Validity& verdict : validity) {
      if (verdict.comparison_group() == group.comparison_group) group.validity = verdict;
    }
    std::vector<const v1::ScenarioResult*> results;
    for (const ScenarioRun* run : members) {
      if (run->result.has_value()) results.push_back(&*run->result);
    }
    group.time_note = SimulatedTimeNote(results);
    // One column per tier, its repeats in order.
    std::map<int, std::vector<const ScenarioRun*>> by_tier;
    for (const ScenarioRun* run : members) {
      by_tier[TierOrder(run->scenario.tier())].push_back(run);
    }
    std::vector<std::vector<const ScenarioRun*>> tiers;
    for (auto& [order, tier_runs] : by_tier) {
      std::stable_sort(tier_runs.begin(), tier_runs.end(),
                       [](const ScenarioRun* a, const ScenarioRun* b) {
                         return a->scenario.repeat() < b->scenario.repeat();
                       });
      ComparisonColumn& column = group.columns.emplace_back();
      column.tier = tier_runs.front()->scenario.tier();
      for (const ScenarioRun* run : tier_runs) {
        column.scenario_ids.push_back(run->scenario.scenario_id());
        if (run->result.has_value()) ++column.succeeded;
      }
      group.repeats = std::max(group.repeats, static_cast<int>(tier_runs.size()));
      if (column.tier == v1::GPU && group.baseline < 0) {
        group.baseline = static_cast<int>(group.columns.size()) - 1;
      }
      tiers.push_back(tier_runs);
    }
    group.scrape_note = ScrapeNote(tiers);
    group.caveats = ComparisonCaveats(tiers);
    for (const MetricInfo* metric : ComparedMetrics()) {
      ComparisonRow& row = group.rows.emplace_back();
      row.key = metric->key;
      row.metric = ComparisonLabel(*metric);
      row.unit = metric->unit;
      row.delta_kind = metric->change_kind;
      row.higher_is_better = metric->higher_is_better;
      for (const std::vector<const ScenarioRun*>& tier_runs : tiers) {
        row.values.push_back(MeanOverRepeats(*metric, tier_runs));
      }
      for (size_t i = 0; i < tiers.size(); ++i) {
        const bool is_baseline = static_cast<int>(i) == group.baseline;
        row.deltas.push_back(
            is_baseline || group.baseline < 0
                ? std::nullopt
                : Delta(metric->change_kind, row.values[i], row.values[group.baseline]));
      }
      row.intervals.assign(tiers.size(), std::nullopt);
    }
  }
  return groups;
}

}  // namespace kvbench::results
