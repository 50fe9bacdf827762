#include "controller/results/comparison.h"

#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/results/comparison_caveats.h"
#include "controller/results/few_scrapes.h"
#include "controller/results/offload_served.h"
#include "controller/results/simulated_time_display.h"
#include "controller/results/validity.h"
#include "controller/results/validity_text.h"

namespace kvbench::results {
namespace {

using Extract = std::function<std::optional<double>(const v1::ScenarioResult&)>;

struct MetricSpec {
  const char* name;
  const char* unit;
  DeltaKind delta_kind;
  bool higher_is_better;
  Extract extract;
};

// A `seconds` field as milliseconds; absent stays absent.
template <typename Has, typename Get>
Extract Ms(Has has, Get get) {
  return [has, get](const v1::ScenarioResult& r) -> std::optional<double> {
    if (!has(r)) return std::nullopt;
    return get(r) * 1000.0;
  };
}

const std::vector<MetricSpec>& Metrics() {
  using R = const v1::ScenarioResult&;
  static const std::vector<MetricSpec> metrics = {
      {"TTFT mean", "ms", DeltaKind::kRelativePct, false,
       Ms([](R r) { return ShownLatency(r).has_ttft_mean_s(); },
          [](R r) { return ShownLatency(r).ttft_mean_s(); })},
      {"TTFT p50", "ms", DeltaKind::kRelativePct, false,
       Ms([](R r) { return ShownLatency(r).has_ttft_p50_s(); },
          [](R r) { return ShownLatency(r).ttft_p50_s(); })},
      {"TTFT p95", "ms", DeltaKind::kRelativePct, false,
       Ms([](R r) { return ShownLatency(r).has_ttft_p95_s(); },
          [](R r) { return ShownLatency(r).ttft_p95_s(); })},
      {"TTFT p99", "ms", DeltaKind::kRelativePct, false,
       Ms([](R r) { return ShownLatency(r).has_ttft_p99_s(); },
          [](R r) { return ShownLatency(r).ttft_p99_s(); })},
      {"TPOT mean", "ms", DeltaKind::kRelativePct, false,
       Ms([](R r) { return ShownLatency(r).has_tpot_mean_s(); },
          [](R r) { return ShownLatency(r).tpot_mean_s(); })},
      {"requests/s", "req/s", DeltaKind::kRelativePct, true,
       [](R r) -> std::optional<double> {
         if (!ShownLatency(r).has_requests_per_s()) return std::nullopt;
         return ShownLatency(r).requests_per_s();
       }},
      {"input tokens/s", "tok/s", DeltaKind::kRelativePct, true,
       [](R r) -> std::optional<double> {
         if (!ShownLatency(r).has_input_tokens_per_s()) return std::nullopt;
         return ShownLatency(r).input_tokens_per_s();
       }},
      {"output tokens/s", "tok/s", DeltaKind::kRelativePct, true,
       [](R r) -> std::optional<double> {
         if (!ShownLatency(r).has_output_tokens_per_s()) return std::nullopt;
         return ShownLatency(r).output_tokens_per_s();
       }},
      {"TTFT degradation median", "%", DeltaKind::kPercentagePoints, false,
       [](R r) -> std::optional<double> {
         if (!ShownLatency(r).has_ttft_degradation_median_pct()) return std::nullopt;
         return ShownLatency(r).ttft_degradation_median_pct();
       }},
      {"TTFT degradation p95", "%", DeltaKind::kPercentagePoints, false,
       [](R r) -> std::optional<double> {
         if (!ShownLatency(r).has_ttft_degradation_p95_pct()) return std::nullopt;
         return ShownLatency(r).ttft_degradation_p95_pct();
       }},
      {"local hit rate", "%", DeltaKind::kPercentagePoints, true,
       [](R r) -> std::optional<double> {
         if (!r.engine().has_local_hit_rate()) return std::nullopt;
         return r.engine().local_hit_rate() * 100.0;
       }},
      {"external hit rate", "%", DeltaKind::kPercentagePoints, true,
       [](R r) -> std::optional<double> {
         if (!r.engine().has_external_hit_rate()) return std::nullopt;
         return r.engine().external_hit_rate() * 100.0;
       }},
      {"KV cache usage mean", "%", DeltaKind::kPercentagePoints, false,
       [](R r) -> std::optional<double> {
         if (!r.engine().has_kv_cache_usage_mean()) return std::nullopt;
         return r.engine().kv_cache_usage_mean() * 100.0;
       }},
      {"KV cache usage max", "%", DeltaKind::kPercentagePoints, false,
       [](R r) -> std::optional<double> {
         if (!r.engine().has_kv_cache_usage_max()) return std::nullopt;
         return r.engine().kv_cache_usage_max() * 100.0;
       }},
      // Lookup-based (offload_served.h): beside it, what offload served.
      {"LMCache lookup hit rate", "%", DeltaKind::kPercentagePoints, true,
       [](R r) -> std::optional<double> {
         if (!r.has_lmcache() || !r.lmcache().has_hit_rate()) return std::nullopt;
         return r.lmcache().hit_rate() * 100.0;
       }},
      {"offload served tokens", "tok", DeltaKind::kRelativePct, true,
       [](R r) { return OffloadServedTokens(r); }},
      {"offload served of prompt tokens", "%", DeltaKind::kPercentagePoints, true,
       [](R r) { return OffloadServedPctOfPrompt(r); }},
      {"sessions achieved", "users", DeltaKind::kRelativePct, true,
       [](R r) -> std::optional<double> { return r.sessions().achieved(); }},
  };
  return metrics;
}

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

// The mean of `extract` over the repeats that succeeded and have the value; null when none has.
std::optional<double> MeanOverRepeats(const Extract& extract,
                                      const std::vector<const ScenarioRun*>& repeats) {
  double sum = 0;
  int count = 0;
  for (const ScenarioRun* run : repeats) {
    if (!run->result.has_value()) continue;
    if (std::optional<double> value = extract(*run->result)) {
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
    for (const MetricSpec& metric : Metrics()) {
      ComparisonRow& row = group.rows.emplace_back();
      row.metric = metric.name;
      row.unit = metric.unit;
      row.delta_kind = metric.delta_kind;
      row.higher_is_better = metric.higher_is_better;
      for (const std::vector<const ScenarioRun*>& tier_runs : tiers) {
        row.values.push_back(MeanOverRepeats(metric.extract, tier_runs));
      }
      for (size_t i = 0; i < tiers.size(); ++i) {
        const bool is_baseline = static_cast<int>(i) == group.baseline;
        row.deltas.push_back(
            is_baseline || group.baseline < 0
                ? std::nullopt
                : Delta(metric.delta_kind, row.values[i], row.values[group.baseline]));
      }
      row.intervals.assign(tiers.size(), std::nullopt);
    }
  }
  return groups;
}

}  // namespace kvbench::results
