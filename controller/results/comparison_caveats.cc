#include "controller/results/comparison_caveats.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "controller/results/validity_text.h"

namespace kvbench::results {
namespace {

// The sampler's default rolling window (SamplingSpec.rate_window_s).
constexpr double kDefaultRateWindowS = 300;

std::string MethodName(v1::HitRateMethod method) {
  switch (method) {
    case v1::HIT_RATE_ROLLING_FINAL_QUARTER:
      return "the rolling rate's final quarter";
    case v1::HIT_RATE_BEFORE_AFTER:
      return "before/after the replay";
    default:
      return "unknown";
  }
}

std::string SampleCaveat(const std::vector<std::vector<const ScenarioRun*>>& tiers) {
  std::vector<std::string> counts;
  bool few = false;
  for (const std::vector<const ScenarioRun*>& tier_runs : tiers) {
    int64_t requests = 0;
    int users = 0;
    bool measured = false;
    for (const ScenarioRun* run : tier_runs) {
      if (!run->result) continue;
      measured = true;
      requests += run->result->latency().requests_completed();
      users += run->result->sessions().achieved();
    }
    if (!measured) continue;
    few = few || requests < kFewRequests;
    counts.push_back(absl::StrCat(TierName(tier_runs.front()->scenario.tier()), " ", requests,
                                  " requests of ", users, users == 1 ? " user" : " users"));
  }
  if (!few) return "";
  return absl::StrCat("small sample (", absl::StrJoin(counts, ", "), "): a p95 of fewer than ",
                      kFewRequests,
                      " requests is close to the largest one, and a delta between so few is "
                      "a hint, not a finding");
}

std::string MethodCaveat(const std::vector<std::vector<const ScenarioRun*>>& tiers) {
  std::set<v1::HitRateMethod> methods;
  std::vector<std::string> each;
  for (const std::vector<const ScenarioRun*>& tier_runs : tiers) {
    std::set<v1::HitRateMethod> own;
    for (const ScenarioRun* run : tier_runs) {
      if (!run->result || !run->result->engine().has_local_hit_rate()) continue;
      own.insert(run->result->engine().hit_rate_method());
    }
    for (v1::HitRateMethod method : own) {
      methods.insert(method);
      each.push_back(
          absl::StrCat(TierName(tier_runs.front()->scenario.tier()), ": ", MethodName(method)));
    }
  }
  if (methods.size() < 2) return "";
  return absl::StrCat("hit rates computed two ways in this group (", absl::StrJoin(each, "; "),
                      "): their difference mixes the methods");
}

std::string WindowCaveat(const std::vector<std::vector<const ScenarioRun*>>& tiers) {
  double window = 0, longest_short_replay = 0;
  for (const std::vector<const ScenarioRun*>& tier_runs : tiers) {
    for (const ScenarioRun* run : tier_runs) {
      if (!run->result ||
          run->result->engine().hit_rate_method() != v1::HIT_RATE_ROLLING_FINAL_QUARTER) {
        continue;
      }
      const double own = run->spec.sampling().has_rate_window_s()
                             ? run->spec.sampling().rate_window_s()
                             : kDefaultRateWindowS;
      const double replay = run->result->latency().duration_s();
      if (replay > 0 && own > replay) {
        window = own;
        longest_short_replay = std::max(longest_short_replay, replay);
      }
    }
  }
  if (window == 0) return "";
  return absl::StrFormat(
      "the hit rates' rolling window (%.0f s) is longer than the replay (up to %.1f s): their "
      "final-quarter \"plateau\" is an average since the replay began (a sampling rate_window_s "
      "shorter than the replay gives a plateau)",
      window, longest_short_replay);
}

// How vLLM counted each offload tier's external queries (EngineMetrics.external_query_counting):
// under "whole_prompt" the external hit rate is hits over every prompt token, under
// "prompt_minus_local" over what the GPU cache missed, so the two are not comparable.
std::string ExternalCountingCaveat(const std::vector<std::vector<const ScenarioRun*>>& tiers) {
  std::set<std::string> methods;
  std::vector<std::string> each;
  for (const std::vector<const ScenarioRun*>& tier_runs : tiers) {
    std::set<std::string> own;
    for (const ScenarioRun* run : tier_runs) {
      if (!run->result || run->result->engine().external_query_counting().empty()) continue;
      own.insert(run->result->engine().external_query_counting());
    }
    for (const std::string& method : own) {
      methods.insert(method);
      each.push_back(absl::StrCat(TierName(tier_runs.front()->scenario.tier()), ": ", method));
    }
  }
  if (methods.size() < 2) return "";
  return absl::StrCat("vLLM counted external queries two ways in this group (",
                      absl::StrJoin(each, "; "),
                      "): the external hit rates are not comparable; \"offload served of prompt "
                      "tokens\" is, being external hits over prompt tokens either way");
}

}  // namespace

std::vector<std::string> ComparisonCaveats(
    const std::vector<std::vector<const ScenarioRun*>>& tiers) {
  std::vector<std::string> caveats;
  for (std::string caveat : {SampleCaveat(tiers), MethodCaveat(tiers), WindowCaveat(tiers),
                             ExternalCountingCaveat(tiers)}) {
    if (!caveat.empty()) caveats.push_back(std::move(caveat));
  }
  return caveats;
}

}  // namespace kvbench::results
