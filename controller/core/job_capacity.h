#pragma once

// A job's capacity search read from the store: its scenarios with their
// stored results and request rows, evaluated by search::EvaluateCapacity. What the controller
// runs when a round of probes has ended, and what GetJob shows.

#include <vector>

#include "controller/results/scenario_run.h"
#include "controller/search/capacity_evaluation.h"
#include "controller/store/store.h"

namespace kvbench::controller {

// The job's scenarios as a comparison sees them, their results read from `store` (unreadable
// results are logged and leave the runs without them).
std::vector<results::ScenarioRun> StoredRuns(const JobRecord& job, Store* store);

// `runs`: the job's scenarios with their results (StoredRuns, or results::RunsOfJob of a view
// already read); the succeeded ones' request rows are read from `store`. A job whose spec has no
// concurrency search gives an empty evaluation. Rows that cannot be read are logged and count as
// a probe repeat that measured nothing.
search::CapacityEvaluation EvaluateJobCapacity(const JobRecord& job,
                                               const std::vector<results::ScenarioRun>& runs,
                                               Store* store);

}  // namespace kvbench::controller
