#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace kvbench::sim {

// Where the leading chunks of a prompt were found in the external (LMCache) cache.
struct ExternalLookup {
  int hit_chunks = 0;  // leading chunks present, contiguous from the start
  int l2_chunks = 0;   // how many of them live only in L2 (disk) and must be read from it
};

// What loading chunks into the engine moved, for the load-time model.
struct ExternalLoad {
  int l1_chunks = 0;  // copied from the pinned CPU pool (host → GPU)
  int l2_chunks = 0;  // read from disk into L1 first, then copied
};

// The KV connector seam of kvsim-vllm (LMCacheMPConnector stand-in). Chunks are named by a hash
// chain over `chunk_size`-token chunks of the prompt (ChunkHashes in the engine), so the same
// prefix has the same names on every replica. Calls block the engine thread briefly (as the real
// connector's lookups do). Implementations: the ZMQ client of kvsim-lmcache; a fake in tests.
class ExternalKvCache {
 public:
  virtual ~ExternalKvCache() = default;
  // Tokens per chunk (the server's --chunk-size, 256 by default).
  virtual int chunk_size() const = 0;
  // How many leading chunks of `chunk_hashes` the cache holds.
  virtual absl::StatusOr<ExternalLookup> Lookup(const std::vector<uint64_t>& chunk_hashes) = 0;
  // Loads the given chunks (a hit prefix from Lookup) for use by a request.
  virtual absl::StatusOr<ExternalLoad> Load(const std::vector<uint64_t>& chunk_hashes) = 0;
  // Stores chunks a request computed; each is `bytes_per_chunk` bytes of KV.
  virtual absl::Status Store(const std::vector<uint64_t>& chunk_hashes, int64_t bytes_per_chunk) = 0;
};

}  // namespace kvbench::sim
