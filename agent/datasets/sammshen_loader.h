#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "agent/datasets/conversation.h"

namespace kvbench::datasets {

// Reads rows of sammshen/lmcache-agentic-traces: {session_id, model, input (the full cumulative
// message list of the call), output_length, pre_gap}; unknown fields are ignored. `path` is the
// published Parquet (one shard, or the folder of shards, read in name order one row group at a
// time) or the same rows as JSONL.
// Rows are grouped by session_id in recorded order; a session's rows must be contiguous (a
// session id reappearing after another session is INVALID_ARGUMENT naming both lines).
absl::StatusOr<Dataset> LoadSammshen(const std::string& path);

}  // namespace kvbench::datasets
