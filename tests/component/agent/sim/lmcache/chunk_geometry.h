#pragma once

#include <cstdint>

namespace kvbench::sim::lmcache::testing {

// One LMCache chunk of Llama-3.1-8B: 256 tokens x 128 KiB of KV per token, 32 MiB (a
// 33,554-byte file at --sim-time-scale's byte scale of 1e-3).
inline constexpr int64_t kLlamaChunkBytes = int64_t{256} * 131072;

}  // namespace kvbench::sim::lmcache::testing
