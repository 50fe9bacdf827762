#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "agent/release/program_release.h"

namespace kvbench::agent::release {

// The oldest release of each component kvbench runs against (deploy/profiles/README.md
// "Supported releases"), and why.
struct SupportedRelease {
  std::string component;        // kVllmComponent, kLmcacheComponent
  std::string minimum_version;  // dotted; "" = no numeric minimum (required flags decide)
  std::vector<std::string> required_flags;  // flags its --help must list (cache servers)
  std::string why;
};
const std::vector<SupportedRelease>& SupportedReleases();

// OK when `release` meets its component's minimum; FAILED_PRECONDITION naming the component,
// the version found, the minimum and why (or the required flags its --help lacks). An unknown
// version passes (the release then decides at start); a simulator is held to the same table.
absl::Status CheckSupportedRelease(const ProgramRelease& release);

// -1, 0, 1 comparing dotted versions numerically ("0.11.1" < "0.11.10"); a suffix after the
// numbers ("0.12.0rc1", "0.5.7.dev3+g1234") counts as below the plain release.
int CompareVersions(const std::string& a, const std::string& b);

}  // namespace kvbench::agent::release
