#pragma once

// A job's capacity search read from the store (issue #30 item 3): its scenarios with their
// stored results and request rows, evaluated by search::EvaluateCapacity. What the controller
// runs when a round of probes has ended, and what GetJob shows.

#include "controller/search/capacity_evaluation.h"
#include "controller/store/store.h"

namespace kvbench::controller {

// A job whose spec has no concurrency search gives an empty evaluation. Results or rows that
// cannot be read are logged and count as a probe repeat that measured nothing.
search::CapacityEvaluation EvaluateJobCapacity(const JobRecord& job, Store* store);

}  // namespace kvbench::controller
