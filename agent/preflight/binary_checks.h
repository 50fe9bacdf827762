#pragma once

#include <vector>

#include "agent/preflight/preflight_probes.h"
#include "agent/tiers/profile_set.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::agent::preflight {

// binary.<profile> for every profile of `profiles`, by name: its command[0] resolved as the agent
// resolves it, its release probed (release::ProbeProgramRelease, once per distinct program and
// arguments) and held to kvbench's minimum (release::CheckSupportedRelease). A FAIL keeps off the
// scenarios that run that profile (a cache server's: of its tiers). Each distinct release probed
// is appended to `*versions`.
std::vector<v1::PreflightCheck> CheckBinaries(const tiers::ProfileSet& profiles,
                                              PreflightProbes& probes,
                                              std::vector<v1::ComponentVersion>* versions);

}  // namespace kvbench::agent::preflight
