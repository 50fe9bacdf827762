#include "agent/sim/lmcache/imitated_release.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kvbench::sim::lmcache {

std::string PrescanOptionValue(const std::vector<std::string>& args, absl::string_view name,
                               std::string fallback) {
  const std::string with_equals = absl::StrCat(name, "=");
  std::string value = std::move(fallback);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;
    if (absl::StartsWith(arg, with_equals)) {
      value = arg.substr(with_equals.size());
    } else if (arg == name && i + 1 < args.size() && !absl::StartsWith(args[i + 1], "-")) {
      value = args[++i];
    }
  }
  return value;
}

PrescannedRelease PrescanRelease(const std::vector<std::string>& args) {
  PrescannedRelease release;
  std::string version = PrescanOptionValue(args, "--sim-lmcache-version", kDefaultLmcacheVersion);
  if (!version.empty()) release.version = std::move(version);
  if (PrescanOptionValue(args, "--sim-flag-set", kFlagSetCurrent) == kFlagSetPrometheusConfig) {
    release.flag_set = FlagSet::kPrometheusConfig;
  }
  return release;
}

}  // namespace kvbench::sim::lmcache
