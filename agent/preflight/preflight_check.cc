#include "agent/preflight/preflight_check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/preflight/preflight_rules.h"

namespace kvbench::agent::preflight {
namespace {

v1::PreflightCheck Make(absl::string_view name, v1::PreflightStatus status, std::string detail,
                        std::string remedy) {
  v1::PreflightCheck check;
  check.set_name(std::string(name));
  check.set_status(status);
  check.set_detail(std::move(detail));
  check.set_remedy(std::move(remedy));
  return check;
}

}  // namespace

v1::PreflightCheck Ok(absl::string_view name, std::string detail) {
  return Make(name, v1::PREFLIGHT_OK, std::move(detail), "");
}

v1::PreflightCheck Skip(absl::string_view name, std::string detail) {
  return Make(name, v1::PREFLIGHT_SKIP, std::move(detail), "");
}

v1::PreflightCheck Warn(absl::string_view name, std::string detail, std::string remedy) {
  return Make(name, v1::PREFLIGHT_WARN, std::move(detail), std::move(remedy));
}

v1::PreflightCheck Fail(absl::string_view name, std::string detail, std::string remedy,
                        std::vector<v1::Tier> tiers, std::vector<std::string> profiles) {
  v1::PreflightCheck check = Make(name, v1::PREFLIGHT_FAIL, std::move(detail), std::move(remedy));
  for (v1::Tier tier : tiers) check.add_tiers(tier);
  for (std::string& profile : profiles) check.add_profiles(std::move(profile));
  return check;
}

const char* StatusWord(v1::PreflightStatus status) {
  switch (status) {
    case v1::PREFLIGHT_OK:
      return "OK";
    case v1::PREFLIGHT_WARN:
      return "WARN";
    case v1::PREFLIGHT_FAIL:
      return "FAIL";
    case v1::PREFLIGHT_SKIP:
      return "SKIP";
    default:
      return "?";
  }
}

std::string KeptOff(const v1::PreflightCheck& check) {
  std::string tiers = check.tiers().empty()
                          ? "every tier"
                          : absl::StrJoin(check.tiers(), ",", [](std::string* out, int tier) {
                              out->append(v1::Tier_Name(static_cast<v1::Tier>(tier)));
                            });
  if (check.profiles().empty()) return tiers;
  return absl::StrCat(tiers, " of ", absl::StrJoin(check.profiles(), ", "));
}

bool AnyFail(const std::vector<v1::PreflightCheck>& checks) {
  return std::any_of(checks.begin(), checks.end(), [](const v1::PreflightCheck& check) {
    return check.status() == v1::PREFLIGHT_FAIL;
  });
}

std::vector<v1::PreflightCheck> NotPassing(const std::vector<v1::PreflightCheck>& checks) {
  std::vector<v1::PreflightCheck> not_passing;
  for (const v1::PreflightCheck& check : checks) {
    if (!PreflightPasses(check)) not_passing.push_back(check);
  }
  return not_passing;
}

}  // namespace kvbench::agent::preflight
