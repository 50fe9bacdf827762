#pragma once

// Request rows for the controller scale bench: what an agent sends the controller after a
// scenario (agent/scenario/request_chunks.h), shaped like kv-runner's requests.jsonl records.

#include "kvbench/v1/event.pb.h"

namespace kvbench::bench {

// The agent's chunk size (agent/scenario/request_chunks.h kRequestRowsPerChunk): a chunk of
// 2,000 rows serializes to about 250 KB.
inline constexpr int kScaleRowsPerChunk = 2000;

// Rows first_index .. first_index + rows - 1 of `total` of a scenario replayed by the agent
// numbered `agent`: 32 users of 5 rounds each over and over, with times and token counts that
// vary as a real run's do (so the store compresses them as it would those), from a generator
// seeded by agent and index (the same call makes the same rows).
v1::RequestRecords MakeRequestChunk(int agent, int first_index, int rows, int total);

}  // namespace kvbench::bench
