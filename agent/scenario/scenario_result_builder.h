#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::agent {

// The ScenarioResult of a finished replay, from kv-runner's own files (DESIGN.md "Replay
// semantics": the runner's JSONL is what the agent parses into results):
// - latency metrics from every line of `requests_jsonl` (a malformed line is INVALID_ARGUMENT
//   naming the file and line: results are never computed from a file read in part);
// - session counts against the virtual users the dataset gives for the job's num_rounds (loaded
//   and chunked again here, as the runner did: requested = the scenario's sessions);
// - the reuse opportunity from the runner's `summary_json` (it counted the prompts), when there;
// - for the simulated engine: sim_time_scale (engine_overrides', else the simulator's default 1)
//   and simulated_latency (the latency in simulated seconds, results/simulated_time.h).
absl::StatusOr<v1::ScenarioResult> BuildScenarioResult(const v1::JobSpec& job,
                                                       const v1::Scenario& scenario,
                                                       const std::string& dataset_path,
                                                       const std::string& requests_jsonl,
                                                       const std::string& summary_json);

}  // namespace kvbench::agent
