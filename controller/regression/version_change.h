#pragma once

// A release change beside a metric change: `kvctl diff` and the regression analysis
// name it as a likely cause when the two sides (or the runs around a change point) ran different
// releases of the engine, the cache server, Caddy, the model or the GPU stack. Pure.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::regression {

// component → the versions recorded (ScenarioResult.versions) on one side.
using ReleaseSet = std::map<std::string, std::set<std::string>>;

// Adds the releases of `result` that can move what it measures: every recorded component but
// kvbench's own (its revision changes with each build of the tool) and versions "unknown".
void AddReleases(const v1::ScenarioResult& result, ReleaseSet* releases);

// "vllm 0.12.0 → 0.33.0; lmcache 0.5.6 → 0.5.7" for each component both sides recorded with
// different versions; "" when none differs.
std::string VersionChangeText(const ReleaseSet& before, const ReleaseSet& after);

// For a change point at run `point.job_id()` of `runs` (oldest first): the version change of its
// series (tier, concurrency, agent class) between the run before it and that run; "".
std::string ChangePointVersionChange(const std::vector<const v1::Job*>& runs,
                                     const v1::ChangePoint& point);

}  // namespace kvbench::regression
