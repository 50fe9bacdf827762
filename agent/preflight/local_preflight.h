#pragma once

#include <optional>

#include "absl/status/statusor.h"
#include "agent/local/local_job_run.h"
#include "agent/preflight/preflight.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::agent::preflight {

// `kvctl doctor`: the preflight of `kvctl run`'s host with `options` (the same flags), and of
// `spec` when one is given (its model, dataset and pools; its build is the vendor of
// options.gpus). The profiles, dataset folders and NVMe pool are found as kvctl run finds them
// (LocalJobRun): the pool's parent defaults to <out>/<job>/nvme-cache, judged by the folder that
// exists above it; user dataset paths are accepted, registry datasets are not pulled; the GPUs
// offered are options.gpus only (kvctl run pins no other). Errors: the profiles that do not load
// (as kvctl run would refuse), a scratch folder that cannot be made.
absl::StatusOr<PreflightReport> RunLocalPreflight(LocalRunOptions options,
                                                  const std::optional<v1::JobSpec>& spec);

}  // namespace kvbench::agent::preflight
