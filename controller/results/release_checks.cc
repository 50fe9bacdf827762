#include "controller/results/release_checks.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "controller/results/validity.h"
#include "controller/results/validity_checks.h"

namespace kvbench::results {
namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

std::string TierOf(const ScenarioRun& run) { return v1::Tier_Name(run.scenario.tier()); }

}  // namespace

bool VersionMustMatch(const std::string& component) {
  return component == "vllm" || component == "lmcache" || component == "model_config";
}

void CheckVersions(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity) {
  // component → version → tiers that ran it, in the group's order.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> seen;
  std::vector<std::string> order;
  for (const ScenarioRun* run : with_results) {
    for (const v1::ComponentVersion& version : run->result->versions()) {
      if (!VersionMustMatch(version.component()) || version.version() == "unknown") continue;
      if (seen.count(version.component()) == 0) order.push_back(version.component());
      std::vector<std::string>& tiers = seen[version.component()][version.version()];
      const std::string tier = TierOf(*run);
      if (std::find(tiers.begin(), tiers.end(), tier) == tiers.end()) tiers.push_back(tier);
    }
  }
  for (const std::string& component : order) {
    const auto& versions = seen[component];
    if (versions.size() < 2) continue;
    std::vector<std::string> parts;
    for (const auto& [version, tiers] : versions) {
      parts.push_back(absl::StrCat(version, " (", absl::StrJoin(tiers, ", "), ")"));
    }
    AddReason(validity, kMixedVersions,
              absl::StrCat(component, " differs between the tiers: ", absl::StrJoin(parts, " vs "),
                           "; the deltas would mix a release change into the offload effect"));
  }
}

void CheckNvmePoolBounded(const std::vector<const ScenarioRun*>& with_results,
                          v1::Validity* validity) {
  for (const ScenarioRun* run : with_results) {
    if (run->scenario.tier() != v1::NVME || !run->result->has_lmcache() ||
        !run->result->lmcache().has_l2_usage_bytes_max() || !run->spec.has_nvme_pool_gb()) {
      continue;
    }
    const double pool_bytes = run->spec.nvme_pool_gb() * kBytesPerGib;
    const auto used = static_cast<double>(run->result->lmcache().l2_usage_bytes_max());
    // A bounded pool may pass its size between two ticks of the eviction loop (~1 Hz), and then
    // evicts: only a pool that outgrew its size without one eviction is unbounded.
    const bool evicted = run->result->lmcache().l2_evicted_chunks() > 0;
    if (used <= pool_bytes || evicted) continue;
    AddReason(validity, kNvmePoolUnbounded,
              absl::StrCat("NVME's L2 held up to ", absl::StrFormat("%.2f", used / kBytesPerGib),
                           " GiB, more than its pool of ", run->spec.nvme_pool_gb(),
                           " GiB, and evicted nothing: this LMCache release ignored the pool's "
                           "eviction block, so the "
                           "NVME tier ran with an unbounded pool (deploy/profiles/README.md "
                           "\"Supported releases\")"));
  }
}

}  // namespace kvbench::results
