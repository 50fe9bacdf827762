#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kvbench/v1/profile.pb.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::agent::release {

// Component names of ComponentVersion (release.proto) for the programs profiles run.
inline constexpr char kVllmComponent[] = "vllm";
inline constexpr char kLmcacheComponent[] = "lmcache";

// What the agent learned about the program one profile runs, probed once per agent
// (ReleaseCache) and before a job in `kv-agent --preflight`.
struct ProgramRelease {
  std::string profile;     // the profile's name
  std::string component;   // kVllmComponent (ENGINE profiles) or kLmcacheComponent (CACHE_SERVER)
  std::string version;     // "" when it could not be read
  bool simulated = false;  // a kvsim imitating that release
  // The flags its --help lists ("--metrics-sample-rate", ...); read for cache servers only.
  std::set<std::string> flags;
  bool flags_known = false;
  std::string probe;  // the command line that was run, for messages: "lmcache server --help"
  std::string error;  // why version or flags are unknown ("" when both were read)

  // Whether a flag may be rendered: listed by --help, or the help was not read (then the release
  // decides at start, as before the probe existed).
  bool MayHaveFlag(std::string_view flag) const;
  v1::ComponentVersion ToProto() const;
};

// What a probe's child printed.
struct ProbeOutput {
  std::string stdout_text;
  std::string stderr_text;
};
// Runs argv with `env` on top of the agent's environment and returns its output when it exits 0
// within `timeout` (then it is stopped); the errors of telemetry::CommandRunner otherwise
// (NOT_FOUND, DEADLINE_EXCEEDED, UNAVAILABLE).
using ProbeRunner = std::function<absl::StatusOr<ProbeOutput>(
    const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
    absl::Duration timeout)>;

// How long a probe may run: `vllm --version` and `lmcache server --help` import their packages
// (torch among them), which takes seconds on a warm node and more on a cold one; never longer
// than the profile's ready_timeout_s (a wrapper that ignores --help and starts the server would
// otherwise hold the scenario for the whole of it).
inline constexpr absl::Duration kDefaultProbeTimeout = absl::Seconds(120);

// Probes the release `profile` runs, `program` being its command[0] resolved to a path:
//   ENGINE:       `<program> --version` (vLLM's top-level version action, vllm/entrypoints/cli/
//                 main.py); stdout's last non-empty line is the version.
//   CACHE_SERVER: `<program> <command[1..]> --help`: the flags from stdout, the version from the
//                 banner LMCache prints to stderr before parsing ("LMCache v<version>",
//                 LMCache/LMCache:lmcache/banner.py; `lmcache` has no --version,
//                 lmcache/cli/main.py).
// A simulated profile's extra_args that start with "--sim-" are passed too (before --version /
// --help), so a simulator imitating an older release answers as that release. The profile's env
// is the child's; it runs at most kDefaultProbeTimeout, or the profile's ready_timeout_s if less.
// Never fails: what could not be read is left empty, with `error` saying why.
ProgramRelease ProbeProgramRelease(const v1::Profile& profile, const std::string& program,
                                   const ProbeRunner& run);

}  // namespace kvbench::agent::release
