#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// One scenario as a comparison sees it: what it ran under and what came of it.
struct ScenarioRun {
  v1::JobSpec spec;  // the effective spec it ran under (defaults applied)
  v1::Scenario scenario;
  v1::ScenarioState state = v1::SCENARIO_STATE_UNSPECIFIED;
  std::string error;                         // why it failed, when it did
  std::optional<v1::ScenarioResult> result;  // set when it succeeded
};

// The job's scenarios in index order, each with the job's spec.
std::vector<ScenarioRun> RunsOfJob(const v1::Job& job);

}  // namespace kvbench::results
