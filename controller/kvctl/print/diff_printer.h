#pragma once

// `kvctl diff`'s table: per matched scenario, each metric before and after, the change, its
// interval and the verdict; then what did not match.

#include <ostream>
#include <string>

#include "controller/regression/job_diff.h"

namespace kvbench::kvctl {

void PrintJobDiff(const regression::JobDiff& diff, const std::string& before_name,
                  const std::string& after_name, std::ostream& out);

// How many metrics were judged a regression (over every scenario).
int CountRegressions(const regression::JobDiff& diff);

}  // namespace kvbench::kvctl
