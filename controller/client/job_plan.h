#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::client {

// A validated job and the scenario matrix it expands into, as `kvctl plan` shows it and as the
// controller would run it.
struct JobPlan {
  v1::JobSpec spec;  // effective: defaults filled in
  std::vector<v1::Scenario> scenarios;
};

// Loads the spec at `path`, applies `sets` (--set KEY=VALUE, controller/spec/spec_overrides.h),
// validates and expands it. INVALID_ARGUMENT lists every problem of the spec, each naming its
// field; NOT_FOUND when the file cannot be read.
absl::StatusOr<JobPlan> PlanJobFile(const std::string& path,
                                    const std::vector<std::string>& sets = {});

}  // namespace kvbench::client
