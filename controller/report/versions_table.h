#pragma once

// The report's "What ran" table: each component's version over the job's results
// (ScenarioResult.versions), the tiers of each when they differ and whether a difference
// invalidates the comparison; then the KV connector the offload tiers' replicas loaded.

#include <string>

#include "controller/report/report_runs.h"

namespace kvbench::report {

std::string VersionsTable(const ReportRuns& runs);

}  // namespace kvbench::report
