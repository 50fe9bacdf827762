#pragma once

// vLLM's usage stats, as kvsim-vllm imitates them: unless turned off, vLLM
// appends a record of the machine and model to $VLLM_CONFIG_ROOT/usage_stats.json at start and
// posts it to stats.vllm.ai (vllm/usage/usage_lib.py@01ff1262: is_usage_stats_enabled,
// UsageMessage._write_to_file). Off when VLLM_NO_USAGE_STATS is "1", when VLLM_DO_NOT_TRACK (else
// DO_NOT_TRACK) is "1" (vllm/envs.py), or when $VLLM_CONFIG_ROOT/do_not_track exists.
// VLLM_CONFIG_ROOT defaults to $XDG_CONFIG_HOME/vllm, else ~/.config/vllm. The simulator writes
// the file (it posts nothing): a benchmark's replicas must not report, so the agent's profiles
// turn it off, and a test sees that they do.

#include <functional>
#include <string>

#include "absl/status/status.h"

namespace kvbench::sim {

struct UsageStats {
  bool enabled = false;
  std::string json_path;  // $VLLM_CONFIG_ROOT/usage_stats.json
};

// From the environment (`getenv` returns null for an unset variable) and the do_not_track file.
UsageStats UsageStatsOf(const std::function<const char*(const char*)>& getenv);

// Appends one record (a JSON line naming the model and the simulator) to `path`, creating its
// folder as vLLM does.
absl::Status WriteUsageRecord(const std::string& path, const std::string& model);

}  // namespace kvbench::sim
