#include "agent/release/supported_releases.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kvbench::agent::release {
namespace {

// The leading dotted numbers of a version and whether anything follows them ("rc1", ".dev3").
struct ParsedVersion {
  std::vector<long> numbers;
  bool suffix = false;
};

ParsedVersion Parse(const std::string& text) {
  ParsedVersion parsed;
  size_t i = 0;
  if (i < text.size() && (text[i] == 'v' || text[i] == 'V')) ++i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    long number = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      number = number * 10 + (text[i] - '0');
      ++i;
    }
    parsed.numbers.push_back(number);
    if (i + 1 < text.size() && text[i] == '.' &&
        std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      ++i;
      continue;
    }
    break;
  }
  parsed.suffix = i < text.size() && text[i] != '+';  // a "+local" build is the release itself
  return parsed;
}

const SupportedRelease* Find(const std::string& component) {
  for (const SupportedRelease& supported : SupportedReleases()) {
    if (supported.component == component) return &supported;
  }
  return nullptr;
}

}  // namespace

const std::vector<SupportedRelease>& SupportedReleases() {
  static const auto* table = new std::vector<SupportedRelease>{
      {kVllmComponent,
       "0.11.1",
       {},
       "the first release with the connector's prefix-cache counters "
       "vllm:external_prefix_cache_{queries,hits} (vLLM PR #26245), from which kvbench takes what "
       "offload served"},
      {kLmcacheComponent,
       "",
       {"--host", "--port", "--http-host", "--http-port", "--l1-size-gb", "--eviction-policy",
        "--max-workers", "--l2-adapter"},
       "the `lmcache server` generation (multiprocess server with the HTTP frontend) whose flags "
       "kvbench renders (LMCache/LMCache:lmcache/cli/commands/server.py@3361c1c3)"},
  };
  return *table;
}

int CompareVersions(const std::string& a, const std::string& b) {
  const ParsedVersion x = Parse(a);
  const ParsedVersion y = Parse(b);
  const size_t n = std::max(x.numbers.size(), y.numbers.size());
  for (size_t i = 0; i < n; ++i) {
    const long p = i < x.numbers.size() ? x.numbers[i] : 0;
    const long q = i < y.numbers.size() ? y.numbers[i] : 0;
    if (p != q) return p < q ? -1 : 1;
  }
  if (x.suffix != y.suffix) return x.suffix ? -1 : 1;
  return 0;
}

absl::Status CheckSupportedRelease(const ProgramRelease& release) {
  const SupportedRelease* supported = Find(release.component);
  if (supported == nullptr) return absl::OkStatus();
  const std::string what = absl::StrCat(release.component, release.simulated ? " (simulated)" : "",
                                        " of profile ", release.profile);
  if (!supported->minimum_version.empty() && !release.version.empty() &&
      CompareVersions(release.version, supported->minimum_version) < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " is ", release.version, ", below kvbench's minimum ", supported->minimum_version,
        ": ", supported->why, " (deploy/profiles/README.md \"Supported releases\")"));
  }
  if (release.flags_known) {
    std::vector<std::string> missing;
    for (const std::string& flag : supported->required_flags) {
      if (!release.MayHaveFlag(flag)) missing.push_back(flag);
    }
    if (!missing.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, " (", release.version.empty() ? "version unknown" : release.version, ", `",
          release.probe, "`) lacks ", absl::StrJoin(missing, ", "), ": kvbench needs ",
          supported->why, " (deploy/profiles/README.md \"Supported releases\")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace kvbench::agent::release
