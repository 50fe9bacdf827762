#include "controller/spec/scenario_expander.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace kvbench::spec {
namespace {

// "-r<repeat>" when the job repeats its cells, else "".
std::string RepeatSuffix(const v1::JobSpec& spec, const v1::Scenario& scenario) {
  return spec.repeats() > 1 ? absl::StrCat("-r", scenario.repeat()) : "";
}

}  // namespace

std::vector<v1::Tier> CanonicalTiers(const v1::JobSpec& spec) {
  std::vector<v1::Tier> tiers;
  for (int tier : spec.tiers()) tiers.push_back(static_cast<v1::Tier>(tier));
  std::sort(tiers.begin(), tiers.end());
  tiers.erase(std::unique(tiers.begin(), tiers.end()), tiers.end());
  return tiers;
}

std::string TierSlug(v1::Tier tier) {
  return absl::StrReplaceAll(absl::AsciiStrToLower(v1::Tier_Name(tier)), {{"_", "-"}});
}

std::vector<v1::Scenario> ExpandScenarios(const v1::JobSpec& spec, const std::string& job_id) {
  if (spec.has_concurrency_search()) {
    std::vector<ProbeCell> first_round;
    for (v1::Tier tier : CanonicalTiers(spec)) {
      first_round.push_back(
          {tier, std::max(spec.concurrency_search().min(), 1), 1, std::max(spec.repeats(), 1)});
    }
    return ExpandProbes(spec, job_id, 0, first_round);
  }
  std::vector<int> concurrency(spec.concurrency().begin(), spec.concurrency().end());
  std::sort(concurrency.begin(), concurrency.end());
  concurrency.erase(std::unique(concurrency.begin(), concurrency.end()), concurrency.end());

  const std::vector<v1::Tier> tiers = CanonicalTiers(spec);
  const int repeats = std::max(spec.repeats(), 1);
  std::vector<v1::Scenario> scenarios;
  scenarios.reserve(concurrency.size() * tiers.size() * repeats);
  for (int users : concurrency) {
    for (int repeat = 1; repeat <= repeats; ++repeat) {
      for (v1::Tier tier : tiers) {
        v1::Scenario& scenario = scenarios.emplace_back();
        int index = static_cast<int>(scenarios.size()) - 1;
        scenario.set_scenario_id(absl::StrFormat("%02d-%s-c%d", index, TierSlug(tier), users));
        if (repeats > 1) absl::StrAppend(scenario.mutable_scenario_id(), "-r", repeat);
        scenario.set_job_id(job_id);
        scenario.set_index(index);
        scenario.set_tier(tier);
        scenario.set_concurrency(users);
        scenario.set_sessions(spec.has_sessions() ? spec.sessions() : users);
        scenario.set_comparison_group(absl::StrCat("c", users));
        scenario.set_repeat(repeat);
        scenario.set_seed(spec.seed() + static_cast<uint64_t>(repeat - 1));
      }
    }
  }
  return scenarios;
}

std::vector<v1::Scenario> ExpandScenariosOnAgents(const v1::JobSpec& spec,
                                                  const std::string& job_id,
                                                  const std::vector<std::string>& agent_ids) {
  const std::vector<v1::Scenario> matrix = ExpandScenarios(spec, job_id);
  std::vector<v1::Scenario> scenarios;
  scenarios.reserve(matrix.size() * agent_ids.size());
  for (const std::string& agent_id : agent_ids) {
    for (const v1::Scenario& base : matrix) {
      v1::Scenario& scenario = scenarios.emplace_back(base);
      const int index = static_cast<int>(scenarios.size()) - 1;
      scenario.set_index(index);
      scenario.set_scenario_id(absl::StrFormat("%02d-%s-c%d%s@%s", index, TierSlug(base.tier()),
                                               base.concurrency(), RepeatSuffix(spec, base),
                                               agent_id));
      scenario.set_comparison_group(absl::StrCat(base.comparison_group(), "@", agent_id));
      scenario.set_agent_id(agent_id);
    }
  }
  return scenarios;
}

std::vector<v1::Scenario> ExpandProbes(const v1::JobSpec& spec, const std::string& job_id,
                                       int first_index, const std::vector<ProbeCell>& probes) {
  std::vector<ProbeCell> ordered = probes;
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const ProbeCell& a, const ProbeCell& b) { return a.tier < b.tier; });
  int most = 0;
  for (const ProbeCell& probe : ordered) most = std::max(most, probe.repeats);
  std::vector<v1::Scenario> scenarios;
  for (int r = 0; r < most; ++r) {
    for (const ProbeCell& probe : ordered) {
      if (r >= probe.repeats) continue;
      const int index = first_index + static_cast<int>(scenarios.size());
      const int repeat = probe.first_repeat + r;
      const int users = probe.concurrency;
      v1::Scenario& scenario = scenarios.emplace_back();
      scenario.set_scenario_id(
          absl::StrFormat("%02d-%s-c%d-r%d", index, TierSlug(probe.tier), users, repeat));
      scenario.set_job_id(job_id);
      scenario.set_index(index);
      scenario.set_tier(probe.tier);
      scenario.set_concurrency(users);
      scenario.set_sessions(spec.has_sessions() ? spec.sessions()
                                                : std::max(users, kMinProbeSessions));
      scenario.set_comparison_group(absl::StrCat("c", users));
      scenario.set_repeat(repeat);
      scenario.set_seed(spec.seed() + static_cast<uint64_t>(repeat - 1));
    }
  }
  return scenarios;
}

}  // namespace kvbench::spec
