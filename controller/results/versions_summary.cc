#include "controller/results/versions_summary.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/results/release_checks.h"

namespace kvbench::results {

std::vector<ComponentVersions> SummarizeVersions(
    const std::vector<const v1::ScenarioResult*>& results) {
  std::vector<ComponentVersions> components;
  for (const v1::ScenarioResult* result : results) {
    if (result == nullptr) continue;
    const std::string tier = v1::Tier_Name(result->tier());
    for (const v1::ComponentVersion& recorded : result->versions()) {
      auto component = std::find_if(
          components.begin(), components.end(),
          [&](const ComponentVersions& c) { return c.component == recorded.component(); });
      if (component == components.end()) {
        component = components.insert(components.end(), ComponentVersions{});
        component->component = recorded.component();
        component->must_match = VersionMustMatch(recorded.component());
      }
      const std::string version = recorded.simulated()
                                      ? absl::StrCat(recorded.version(), " (simulated)")
                                      : recorded.version();
      auto seen =
          std::find_if(component->versions.begin(), component->versions.end(),
                       [&](const ComponentVersions::Seen& s) { return s.version == version; });
      if (seen == component->versions.end()) {
        seen = component->versions.insert(component->versions.end(), {version, {}});
      }
      if (std::find(seen->tiers.begin(), seen->tiers.end(), tier) == seen->tiers.end()) {
        seen->tiers.push_back(tier);
      }
    }
  }
  // A fixed order, whatever order the results came in: what was measured first, then the tool.
  static const std::vector<std::string> kOrder = {
      "vllm", "lmcache", "caddy", "kvbench", "model_config", "nvidia_driver", "cuda", "rocm"};
  const auto rank = [](const std::string& component) {
    return std::find(kOrder.begin(), kOrder.end(), component) - kOrder.begin();
  };
  std::stable_sort(components.begin(), components.end(),
                   [&](const ComponentVersions& a, const ComponentVersions& b) {
                     return rank(a.component) < rank(b.component);
                   });
  return components;
}

std::string VersionsText(const ComponentVersions& component) {
  if (component.versions.size() == 1) {
    return absl::StrCat(component.component, " ", component.versions.front().version);
  }
  std::vector<std::string> parts;
  for (const ComponentVersions::Seen& seen : component.versions) {
    parts.push_back(absl::StrCat(seen.version, " (", absl::StrJoin(seen.tiers, ", "), ")"));
  }
  return absl::StrCat(component.component, " ", absl::StrJoin(parts, " vs "));
}

}  // namespace kvbench::results
