#pragma once

// A job with every request of its succeeded scenarios, for `kvctl diff`: from a local
// run's folders (each scenario's requests.jsonl) or from the controller (ListRequests).

#include <string>

#include "absl/status/statusor.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/regression/job_diff.h"

namespace kvbench::kvctl {

// `job_or_dir` as FetchJob takes it. NOT_FOUND naming the scenario whose requests are missing
// (a local run whose requests.jsonl was deleted; a job older than request retention).
// The rows of `job->job` (fetched from `job_or_dir`) into job->rows; errors as FetchJobRequests.
absl::Status FetchJobRows(const std::string& job_or_dir, const ConnectionFlags& connection,
                          const KvctlContext& context, regression::JobRequests* job);

absl::StatusOr<regression::JobRequests> FetchJobRequests(const std::string& job_or_dir,
                                                         const ConnectionFlags& connection,
                                                         const KvctlContext& context);

}  // namespace kvbench::kvctl
