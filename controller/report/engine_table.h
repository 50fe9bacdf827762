#pragma once

// The report's vLLM engine table: per run, KV cache usage over the in-replay scrapes, preemptions,
// and the prefix-cache token counters' increases over the replay, with what offload served.

#include <string>

#include "controller/report/report_runs.h"

namespace kvbench::report {

std::string EngineTable(const ReportRuns& runs);

}  // namespace kvbench::report
