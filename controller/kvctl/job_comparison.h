#pragma once

// The tier comparison as kvctl shows it (`run`, `compare`): each group under its verdict, its
// deltas with their bootstrap intervals when the job's request rows can be read.

#include <map>
#include <string>
#include <vector>

#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/results/comparison.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// Reads the rows of `job` from `job_or_dir` (a controller job id or a kvctl run folder). Rows
// that cannot be read leave the deltas without intervals, each group's interval_note saying why:
// the comparison itself never fails for them.
// The comparison of `job` with the intervals from `rows` (its request rows, already fetched).
std::vector<results::ComparisonGroup> JobComparisonOfRows(
    const v1::Job& job, const std::map<std::string, std::vector<v1::RequestRow>>& rows);

std::vector<results::ComparisonGroup> JobComparison(const v1::Job& job,
                                                    const std::string& job_or_dir,
                                                    const ConnectionFlags& connection,
                                                    const KvctlContext& context);

}  // namespace kvbench::kvctl
