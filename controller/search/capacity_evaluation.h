#pragma once

// Where a job's capacity search stands, from its scenarios and their request
// rows alone: each probe judged from the 95% interval of every SLO metric over its repeats (the
// two-stage bootstrap of bootstrap_value.h), each tier's next step (capacity_search.h), its
// capacity with the interval it is known to, and the headline. The controller runs it when a
// round of probes has ended to add the next; every view of the job runs it to show the answer.
// Pure, deterministic (the bootstrap's seed is fixed): an independent reader of the rows gets
// the same capacities.

#include <map>
#include <string>
#include <vector>

#include "controller/results/scenario_run.h"
#include "controller/spec/scenario_expander.h"
#include "kvbench/v1/capacity.pb.h"
#include "kvbench/v1/event.pb.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::search {

// Bisection stops when the range left is within this share of the capacity (or 1 user).
inline constexpr double kSearchResolutionPct = 5;

// A tier's next probe (spec::ExpandProbes makes its scenarios).
using PlannedProbe = spec::ProbeCell;

struct CapacityEvaluation {
  v1::CapacityReport report;
  // Each unfinished tier's next probe; empty while a probe still runs, and once every tier is
  // finished (report.finished).
  std::vector<PlannedProbe> next;
  // Some scenario of the job has not ended yet.
  bool running = false;
};

// `runs`: every scenario of the job (results::RunsOfJob); `rows`: the request rows of its
// succeeded scenarios by scenario id. A succeeded probe scenario without rows counts as a repeat
// that measured nothing.
CapacityEvaluation EvaluateCapacity(const v1::JobSpec& spec,
                                    const std::vector<results::ScenarioRun>& runs,
                                    const std::map<std::string, std::vector<v1::RequestRow>>& rows);

// "TTFT p95 ≤ 2 s, TPOT mean ≤ 50 ms".
std::string SloText(const v1::Slo& slo);

}  // namespace kvbench::search
