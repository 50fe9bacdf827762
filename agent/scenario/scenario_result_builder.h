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
// - session counts (results::ComputeSessionCounts) from the records and the runner's plan in
//   `summary_json` (planned_users with their sendable rounds, the dataset ceiling, the ceiling
//   under ISL, the selection: session_plan_json.h); a summary without a plan (an older runner)
//   falls back to the first `sessions` virtual users of the dataset, loaded and chunked again;
// - peak_concurrent_tokens from the records and, when the runner counted prompts,
//   `prompts_jsonl` (each shared chunk counted once: working_set.h); without that file (or with
//   an empty path) the per-user sum;
// - the reuse opportunity from the runner's `summary_json` (it counted the prompts), when there;
// - for the simulated engine: sim_time_scale (engine_overrides', else the simulator's default 1)
//   and simulated_latency (the latency in simulated seconds, results/simulated_time.h).
absl::StatusOr<v1::ScenarioResult> BuildScenarioResult(const v1::JobSpec& job,
                                                       const v1::Scenario& scenario,
                                                       const std::string& dataset_path,
                                                       const std::string& requests_jsonl,
                                                       const std::string& summary_json,
                                                       const std::string& prompts_jsonl);

// A simulated engine's time scale for `job`: engine_overrides.sim_time_scale, else kvsim-vllm's
// default --sim-time-scale (1: real time).
double SimTimeScale(const v1::JobSpec& job);

}  // namespace kvbench::agent
