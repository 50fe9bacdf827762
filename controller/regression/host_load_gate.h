#pragma once

// A scenario whose host was saturated (controller/results/host_saturation.h) measured the host as
// much as the system under test. In a diff (kvctl diff, and the controller's analysis
// of a scheduled run) each side pools only its runs whose host kept up, naming those it left out;
// a side with no such run is shown but "not measured", and raises no alert. Pure.

#include <string>
#include <vector>

#include "controller/regression/job_diff.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::regression {

// results::HostSaturationMessage of the scenario's result; "" when it has none or its host kept
// up.
std::string HostSaturationOf(const v1::ScenarioStatus& status);

// Says in `diff`'s note which saturated runs (their HostSaturationMessage, "<job>/" first) a side
// left out (`left_out`: it pooled others), and, with `only` (a side's only runs were saturated),
// makes every metric not_measured with the note "host saturated". True when it did.
bool WithholdForHostLoad(const std::vector<std::string>& left_out,
                         const std::vector<std::string>& only, ScenarioDiff* diff);

}  // namespace kvbench::regression
