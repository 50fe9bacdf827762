#pragma once

// The profiles the preflight tests check against: every profile kvbench ships
// (deploy/profiles), or only some of them.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "agent/tiers/profile_set.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::testing {

inline agent::tiers::ProfileSet ShippedProfiles() {
  absl::StatusOr<agent::tiers::ProfileSet> profiles =
      agent::tiers::ProfileSet::LoadDir(KV_PROFILES_DIR);
  REQUIRE(profiles.ok());
  return *profiles;
}

// The shipped profiles named in `names` alone.
inline agent::tiers::ProfileSet SomeProfiles(const std::vector<std::string>& names) {
  const agent::tiers::ProfileSet all = ShippedProfiles();
  std::vector<v1::Profile> some;
  for (const std::string& name : names) some.push_back(**all.Find(name));
  absl::StatusOr<agent::tiers::ProfileSet> profiles =
      agent::tiers::ProfileSet::FromProfiles(std::move(some));
  REQUIRE(profiles.ok());
  return *profiles;
}

inline const v1::PreflightCheck& Named(const std::vector<v1::PreflightCheck>& checks,
                                       const std::string& name) {
  for (const v1::PreflightCheck& check : checks) {
    if (check.name() == name) return check;
  }
  FAIL("no check named " << name);
  static const v1::PreflightCheck none;
  return none;
}

inline std::vector<std::string> Profiles(const v1::PreflightCheck& check) {
  return {check.profiles().begin(), check.profiles().end()};
}

inline std::vector<v1::Tier> Tiers(const v1::PreflightCheck& check) {
  std::vector<v1::Tier> tiers;
  for (int tier : check.tiers()) tiers.push_back(static_cast<v1::Tier>(tier));
  return tiers;
}

}  // namespace kvbench::testing
