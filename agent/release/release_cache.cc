#include "agent/release/release_cache.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"

namespace kvbench::agent::release {
namespace {

// `caddy version` prints a line and exits.
constexpr absl::Duration kCaddyProbeTimeout = absl::Seconds(10);

}  // namespace

ProgramRelease ReleaseCache::Get(const v1::Profile& profile, const std::string& program) {
  const std::pair<std::string, std::string> key{profile.name(), program};
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = releases_.find(key); it != releases_.end()) return it->second;
  }
  // Probed outside the lock: a probe takes seconds, and two first scenarios probing the same
  // program twice is harmless.
  ProgramRelease release = ProbeProgramRelease(profile, program, run_);
  std::lock_guard<std::mutex> lock(mu_);
  return releases_.emplace(key, std::move(release)).first->second;
}

std::string ReleaseCache::CaddyVersion(const std::string& program) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = caddy_.find(program); it != caddy_.end()) return it->second;
  }
  // "v2.6.2 h1:..." (caddy's `version` command, cmd/commandfuncs.go cmdVersion).
  std::string version;
  if (absl::StatusOr<ProbeOutput> output = run_({program, "version"}, {}, kCaddyProbeTimeout);
      output.ok()) {
    std::vector<std::string> words = absl::StrSplit(absl::StripAsciiWhitespace(output->stdout_text),
                                                    absl::ByAnyChar(" \n"), absl::SkipEmpty());
    if (!words.empty()) version = words.front();
  }
  std::lock_guard<std::mutex> lock(mu_);
  return caddy_.emplace(program, version).first->second;
}

}  // namespace kvbench::agent::release
