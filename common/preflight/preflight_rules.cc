#include "common/preflight/preflight_rules.h"

#include <algorithm>

namespace kvbench {

bool PreflightPasses(const v1::PreflightCheck& check) {
  return check.status() == v1::PREFLIGHT_OK || check.status() == v1::PREFLIGHT_SKIP;
}

bool PreflightKeepsOff(const v1::PreflightCheck& check, v1::Tier tier,
                       const std::string& engine_profile,
                       const std::optional<std::string>& cache_profile) {
  if (check.status() != v1::PREFLIGHT_FAIL) return false;
  const bool tier_named =
      check.tiers().empty() ||
      std::find(check.tiers().begin(), check.tiers().end(), tier) != check.tiers().end();
  if (!tier_named) return false;
  if (check.profiles().empty()) return true;
  return std::any_of(check.profiles().begin(), check.profiles().end(),
                     [&](const std::string& profile) {
                       return profile == engine_profile ||
                              (cache_profile.has_value() && profile == *cache_profile);
                     });
}

}  // namespace kvbench
