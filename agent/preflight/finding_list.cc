#include "agent/preflight/finding_list.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_join.h"

namespace kvbench::agent::preflight {
namespace {

// Worse is larger.
int Severity(v1::PreflightStatus status) {
  switch (status) {
    case v1::PREFLIGHT_FAIL:
      return 3;
    case v1::PREFLIGHT_WARN:
      return 2;
    case v1::PREFLIGHT_OK:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

void FindingList::Add(v1::PreflightStatus status, std::string detail, std::string remedy,
                      std::vector<std::string> profiles) {
  if (status == v1::PREFLIGHT_FAIL && profiles.empty()) status = v1::PREFLIGHT_WARN;
  findings_.push_back({status, std::move(detail), std::move(remedy), std::move(profiles)});
}

v1::PreflightCheck FindingList::ToCheck(absl::string_view name, std::vector<v1::Tier> tiers) const {
  v1::PreflightCheck check;
  check.set_name(std::string(name));
  v1::PreflightStatus worst = v1::PREFLIGHT_SKIP;
  std::vector<std::string> details;
  std::vector<std::string> remedies;
  std::set<std::string> profiles;
  for (const Finding& finding : findings_) {
    if (Severity(finding.status) > Severity(worst)) worst = finding.status;
    details.push_back(finding.detail);
    const bool passes = finding.status == v1::PREFLIGHT_OK || finding.status == v1::PREFLIGHT_SKIP;
    if (!passes && !finding.remedy.empty() &&
        std::find(remedies.begin(), remedies.end(), finding.remedy) == remedies.end()) {
      remedies.push_back(finding.remedy);
    }
    if (finding.status == v1::PREFLIGHT_FAIL) {
      profiles.insert(finding.profiles.begin(), finding.profiles.end());
    }
  }
  check.set_status(worst);
  check.set_detail(absl::StrJoin(details, "; "));
  check.set_remedy(absl::StrJoin(remedies, "; "));
  if (worst == v1::PREFLIGHT_FAIL) {
    for (v1::Tier tier : tiers) check.add_tiers(tier);
    for (const std::string& profile : profiles) check.add_profiles(profile);
  }
  return check;
}

}  // namespace kvbench::agent::preflight
