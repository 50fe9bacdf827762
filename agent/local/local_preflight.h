#pragma once

#include <optional>

#include "absl/status/statusor.h"
#include "agent/local/local_run_config.h"
#include "agent/preflight/preflight.h"
#include "agent/preflight/preflight_printer.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::agent {

// What `kvctl doctor` uses of the agent, in one header: RunLocalPreflight below and the printing
// kv-agent --preflight does (preflight_printer.h).

// `kvctl doctor`: the preflight `kvctl run` with `options` (the same flags) runs when its agent
// starts (agent/agent.h), and that of `spec` when one is given (its model, dataset and pools; its
// build is the vendor of options.gpus). The config and seams are kvctl run's (LocalRunConfig) for
// a job not yet named: the pool's parent defaults to <out>/<job>/nvme-cache, judged by the folder
// that exists above it; user dataset paths are accepted, registry datasets are not pulled.
// Errors: the profiles that do not load (as kvctl run would refuse).
absl::StatusOr<preflight::PreflightReport> RunLocalPreflight(
    LocalRunOptions options, const std::optional<v1::JobSpec>& spec);

}  // namespace kvbench::agent
