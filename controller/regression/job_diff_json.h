#pragma once

// A JobDiff as JSON (`kvctl diff --output json`, the controller's alerts): per scenario and
// metric, the values before and after in the metric's own unit (seconds, per second, %), the
// change and its interval (% or percentage points, `change_kind` says which), the one-sided
// p-values against the band's edges before and after Holm's adjustment, and the verdict; the
// families the verdicts were controlled in (`family_wise`).

#include <nlohmann/json.hpp>

#include "controller/regression/job_diff.h"

namespace kvbench::regression {

nlohmann::ordered_json MetricDiffJson(const MetricDiff& diff);
nlohmann::ordered_json JobDiffJson(const JobDiff& diff);

}  // namespace kvbench::regression
