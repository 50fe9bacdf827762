#include "controller/results/comparison.h"

#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "controller/results/offload_served.h"
#include "controller/results/simulated_time_display.h"

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

}  // namespace

std::vector<ComparisonGroup> BuildComparison(const std::vector<ScenarioRun>& runs,
                                             const std::vector<v1::Validity>& validity) {
  std::map<std::pair<int32_t, std::string>, std::vector<const ScenarioRun*>> grouped;
  for (const ScenarioRun& run : runs) {
    std::string group = run.scenario.comparison_group();
    if (group.empty()) group = absl::StrCat("c", run.scenario.concurrency());
    grouped[{run.scenario.concurrency(), group}].push_back(&run);
  }
  std::vector<ComparisonGroup> groups;
  for (auto& [key, members] : grouped) {
    std::stable_sort(members.begin(), members.end(),
                     [](const ScenarioRun* a, const ScenarioRun* b) {
                       return TierOrder(a->scenario.tier()) < TierOrder(b->scenario.tier());
                     });
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
    for (const ScenarioRun* run : members) {
      ComparisonColumn& column = group.columns.emplace_back();
      column.tier = run->scenario.tier();
      column.scenario_id = run->scenario.scenario_id();
      column.succeeded = run->result.has_value();
      if (column.tier == v1::GPU && group.baseline < 0) {
        group.baseline = static_cast<int>(group.columns.size()) - 1;
      }
    }
    for (const MetricSpec& metric : Metrics()) {
      ComparisonRow& row = group.rows.emplace_back();
      row.metric = metric.name;
      row.unit = metric.unit;
      row.delta_kind = metric.delta_kind;
      row.higher_is_better = metric.higher_is_better;
      for (const ScenarioRun* run : members) {
        row.values.push_back(run->result.has_value() ? metric.extract(*run->result) : std::nullopt);
      }
      for (size_t i = 0; i < members.size(); ++i) {
        const bool is_baseline = static_cast<int>(i) == group.baseline;
        row.deltas.push_back(
            is_baseline || group.baseline < 0
                ? std::nullopt
                : Delta(metric.delta_kind, row.values[i], row.values[group.baseline]));
      }
    }
  }
  return groups;
}

}  // namespace kvbench::results
