#pragma once

// The report's "Change against a baseline" section: per matched scenario a table of
// each metric before and after, the change, its bootstrap interval and the verdict, regressions
// marked. Pure.

#include <string>

#include "controller/regression/job_diff.h"

namespace kvbench::report {

std::string DiffSection(const regression::JobDiff& diff, const std::string& baseline_name);

}  // namespace kvbench::report
