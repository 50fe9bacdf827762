#pragma once

// A schedule's history as Apache Otava reads a CSV test (apache/otava docs/CSV.md and
// otava/importer.py, CsvImporter): a header row, then one row per run, oldest first; the time
// column `time` (the run's fire time, RFC 3339 UTC), the attribute column `job_id`, and one metric
// column per line of the history, named AGENT.TIER.cCONCURRENCY (TIER.cCONCURRENCY for a job
// that was not fanned out), holding the history's metric. Otava converts every metric cell of a
// row with float() and fails the import on an empty one, so a run without a value in some line
// (a scenario that failed, a cell the run did not have) is left out, and named.

#include <ostream>
#include <string>
#include <vector>

#include "controller/report/history_report.h"

namespace kvbench::kvctl {

// The metric column of `series`.
std::string OtavaColumn(const report::HistorySeries& series);

// Writes the CSV to `out`; returns the runs left out, each as "JOB (no value for COLUMN, ...)".
std::vector<std::string> PrintOtavaCsv(const report::History& history, std::ostream& out);

}  // namespace kvbench::kvctl
