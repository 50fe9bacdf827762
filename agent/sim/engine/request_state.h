#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/sim/engine/block_hasher.h"
#include "agent/sim/engine/engine_types.h"
#include "agent/sim/engine/external_kv_cache.h"
#include "agent/sim/engine/kv_block_manager.h"

namespace kvbench::sim {

using OutputCallback = std::function<void(const RequestOutput&)>;

// Everything the engine core knows about one request it holds (waiting or running).
struct RequestState {
  std::string id;
  std::string sample_key;        // what the output sampler draws from (EngineRequest::sample_key)
  std::vector<uint32_t> tokens;  // the prompt, then every generated token
  int prompt_tokens = 0;
  int max_tokens = 0;
  int target_output_tokens = 0;  // drawn at Submit: the request ends after this many
  bool ends_by_length = false;   // the target is max_tokens: finish reason "length"
  std::shared_ptr<const OutputCallback> on_output;

  // KV: `blocks` hold tokens [0, num_computed) (and the slots being filled this step).
  std::vector<uint64_t> block_hashes;  // chain names of every full block of `tokens`
  std::vector<uint64_t> chunk_hashes;  // chain names of full external chunks of the prompt
  std::vector<BlockId> blocks;
  int64_t num_cached_blocks = 0;  // leading blocks of `blocks` registered in the prefix cache
  int64_t num_computed = 0;

  // The external cache's answer for this request while it waits to be admitted: looked up once,
  // then reused on every scheduling step until admission (PrefixLookup::Find), as LMCache's
  // connector keeps one lookup future per request. Cleared at admission, so a preempted request
  // is looked up again when it is readmitted.
  std::optional<ExternalLookup> pending_lookup;

  // The lookup of the current admission.
  int64_t external_hit_chunks = 0;  // leading prompt chunks the external cache holds
  bool stored_external = false;     // this admission's computed chunks were stored

  // Reporting.
  int local_cached_tokens = 0;  // at first scheduling (vLLM's num_cached_tokens)
  int external_cached_tokens = 0;
  int num_preemptions = 0;
  bool ever_scheduled = false;
  RequestTimings timings;
  double last_token_s = -1;
  std::vector<double> inter_token_s;

  int output_tokens() const { return static_cast<int>(tokens.size()) - prompt_tokens; }
  int64_t num_tokens() const { return static_cast<int64_t>(tokens.size()); }

  // Appends a generated token and names the block it completes, if any.
  void AppendToken(uint32_t token, int block_size) {
    tokens.push_back(token);
    BlockHasher::ExtendChainHashes(tokens, block_size, &block_hashes);
  }
};

}  // namespace kvbench::sim
