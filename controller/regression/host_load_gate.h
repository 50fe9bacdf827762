#pragma once

// A scenario whose host was saturated (controller/results/host_saturation.h) measured the host as
// much as the system under test (issue #30): in a diff it is "not measured" and raises no alert,
// and a baseline does not pool it. Pure.

#include <string>
#include <vector>

#include "controller/regression/job_diff.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::regression {

// results::HostSaturationMessage of the scenario's result; "" when it has none or its host kept
// up.
std::string HostSaturationOf(const v1::ScenarioStatus& status);

// With `saturated` (HostSaturationMessage of runs of either side) not empty: every metric of
// `diff` not_measured with the note "host saturated", and the scenario's note saying why.
void WithholdForHostLoad(const std::vector<std::string>& saturated, ScenarioDiff* diff);

// `jobs` without their saturated scenarios: what a regression baseline may pool.
std::vector<JobRequests> WithoutSaturatedScenarios(const std::vector<JobRequests>& jobs);

}  // namespace kvbench::regression
