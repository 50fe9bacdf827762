#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// The JOB|DIR argument of results, compare and report: an existing folder is a local run
// (kvctl run's --out, or one job's folder in it; client/local_job_files.h), anything else a job
// id asked of the controller. Either way the job carries its validity verdicts (computed here
// when the source has none).
absl::StatusOr<v1::Job> FetchJob(const std::string& job_or_dir, const ConnectionFlags& connection,
                                 const KvctlContext& context);

}  // namespace kvbench::kvctl
