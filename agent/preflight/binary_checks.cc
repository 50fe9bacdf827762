#include "agent/preflight/binary_checks.h"

#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/preflight/preflight_check.h"
#include "agent/release/supported_releases.h"

namespace kvbench::agent::preflight {
namespace {

std::vector<v1::Tier> TiersOf(const v1::Profile& profile) {
  if (profile.role() != v1::CACHE_SERVER) return {};  // an engine serves every tier
  std::vector<v1::Tier> tiers;
  for (int tier : profile.tiers()) tiers.push_back(static_cast<v1::Tier>(tier));
  return tiers;
}

// What a profile's program is called in a remedy: "vLLM (pip install vllm)".
std::string InstallHint(const v1::Profile& profile) {
  if (profile.simulated()) {
    return absl::StrCat("build kvbench's ", profile.command(0),
                        " and keep it beside kv-agent (cmake --install puts both in <prefix>/bin)");
  }
  if (profile.role() == v1::ENGINE) {
    return "install vLLM (pip install vllm) in the environment whose PATH the agent runs with";
  }
  return "install LMCache (pip install lmcache) in the environment whose PATH the agent runs with";
}

std::string RemoveHint(const v1::Profile& profile) {
  return absl::StrCat(", or remove ", profile.name(),
                      ".json from profiles_dir if this node runs no ", profile.name());
}

// What makes two profiles' probes the same run: the program, its arguments and environment.
std::string ProbeKey(const v1::Profile& profile, const std::string& program) {
  std::string key = absl::StrCat(program, "\n", profile.role(), "\n", profile.simulated(), "\n",
                                 absl::StrJoin(profile.command(), " "), "\n");
  if (profile.simulated()) absl::StrAppend(&key, absl::StrJoin(profile.extra_args(), " "), "\n");
  std::map<std::string, std::string> env(profile.env().begin(), profile.env().end());
  absl::StrAppend(&key, absl::StrJoin(env, ",", absl::PairFormatter("=")));
  return key;
}

// "vllm 0.11.1", "vllm 0.11.1 (simulated)".
std::string ReleaseText(const release::ProgramRelease& found) {
  return absl::StrCat(found.component, " ", found.version, found.simulated ? " (simulated)" : "");
}

v1::PreflightCheck CheckProfile(const v1::Profile& profile, const std::string& program,
                                const release::ProgramRelease& found) {
  const std::string name = absl::StrCat("binary.", profile.name());
  const absl::Status supported = release::CheckSupportedRelease(found);
  if (!supported.ok()) {
    return Fail(name, absl::StrCat(program, ": ", supported.message()),
                absl::StrCat("upgrade ", found.component,
                             " to a supported release (deploy/profiles/README.md \"Supported "
                             "releases\")",
                             RemoveHint(profile)),
                TiersOf(profile), {profile.name()});
  }
  if (found.version.empty()) {
    return Warn(name,
                absl::StrCat(program, ": ", found.component, " version unknown",
                             found.error.empty() ? "" : absl::StrCat(" (", found.error, ")")),
                absl::StrCat("run `", found.probe.empty() ? program : found.probe,
                             "` as the agent's user to see why; the release decides at start"));
  }
  return Ok(name, absl::StrCat(program, ": ", ReleaseText(found)));
}

bool SameVersion(const v1::ComponentVersion& a, const v1::ComponentVersion& b) {
  return a.component() == b.component() && a.version() == b.version() && a.source() == b.source() &&
         a.simulated() == b.simulated();
}

}  // namespace

std::vector<v1::PreflightCheck> CheckBinaries(const tiers::ProfileSet& profiles,
                                              PreflightProbes& probes,
                                              std::vector<v1::ComponentVersion>* versions) {
  std::vector<v1::PreflightCheck> checks;
  std::map<std::string, release::ProgramRelease> probed;  // ProbeKey -> release
  for (const std::string& profile_name : profiles.names()) {
    const v1::Profile& profile = **profiles.Find(profile_name);
    const std::string name = absl::StrCat("binary.", profile.name());
    absl::StatusOr<std::string> program = probes.ResolveProgram(profile.command(0));
    if (!program.ok()) {
      checks.push_back(Fail(name, std::string(program.status().message()),
                            absl::StrCat(InstallHint(profile), RemoveHint(profile)),
                            TiersOf(profile), {profile.name()}));
      continue;
    }
    const std::string key = ProbeKey(profile, *program);
    auto it = probed.find(key);
    if (it == probed.end()) {
      it = probed.emplace(key, probes.ProbeRelease(profile, *program)).first;
      v1::ComponentVersion version = it->second.ToProto();
      const bool seen = std::any_of(
          versions->begin(), versions->end(),
          [&version](const v1::ComponentVersion& other) { return SameVersion(version, other); });
      if (!seen) versions->push_back(std::move(version));
    }
    release::ProgramRelease found = it->second;
    found.profile = profile.name();
    checks.push_back(CheckProfile(profile, *program, found));
  }
  return checks;
}

}  // namespace kvbench::agent::preflight
