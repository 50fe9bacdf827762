#pragma once

#include <map>
#include <mutex>
#include <string>

#include "agent/release/program_release.h"

namespace kvbench::agent::release {

// The releases of the programs this agent runs, each probed once per agent lifetime (the flags
// a profile gets depend on its release): the first scenario of a profile pays the probe, later ones
// reuse it. Keyed by profile name and resolved program, so an upgrade under the same path is seen
// by the next agent start, not mid-job. Thread-safe.
class ReleaseCache {
 public:
  explicit ReleaseCache(ProbeRunner run) : run_(std::move(run)) {}

  ProgramRelease Get(const v1::Profile& profile, const std::string& program);
  // `caddy version`'s first word ("v2.6.2"); "" when it cannot be read.
  std::string CaddyVersion(const std::string& program);

 private:
  ProbeRunner run_;
  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, ProgramRelease> releases_;
  std::map<std::string, std::string> caddy_;
};

}  // namespace kvbench::agent::release
