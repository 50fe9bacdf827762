#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/datasets/conversation.h"

namespace kvbench::datasets {

// The generic loader's minimum chunk length (DESIGN.md "Replay semantics"; --min-chunk-rounds).
inline constexpr int kDefaultMinChunkRounds = 5;

// Reads a dataset from `path` (a file, or a folder for lmcache-agent-trace) by its code:
//   sammshen            rows of sammshen/lmcache-agentic-traces as JSONL (one row = one call)
//   tau2-bench-v1       a tau2-bench Results JSON (rounds = LLM-generated assistant messages)
//   lmcache-agent-trace JSONL, one session per file (or a folder of them), sorted by timestamp
//   openai-messages     JSONL, {"messages": [...]} per line (one conversation per line)
//   sharegpt            ShareGPT JSON
// Malformed input is INVALID_ARGUMENT naming the file, line and field; NOT_FOUND when `path`
// cannot be read; an unknown code is INVALID_ARGUMENT listing the known ones.
absl::StatusOr<Dataset> LoadDataset(const std::string& code, const std::string& path);

// Slices each session, in order, into consecutive chunks of `num_rounds` rounds, one virtual user
// per chunk; a leftover shorter than `num_rounds` is dropped. For every dataset but sammshen, a
// `num_rounds` below `min_chunk_rounds` gives zero users: FAILED_PRECONDITION saying exactly
// that, before anything is sent.
absl::StatusOr<std::vector<VirtualUser>> ChunkIntoUsers(const Dataset& dataset, int num_rounds,
                                                        int min_chunk_rounds);

}  // namespace kvbench::datasets
