#include "agent/results/reuse_opportunity.h"

#include <cstddef>
#include <unordered_map>
#include <unordered_set>

namespace kvbench::agent::results {
namespace {

// splitmix64 finalizer: a well-mixed, platform-independent 64-bit step.
std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

// Hash chain: each chunk's key depends on its parent's key and its own tokens.
std::vector<std::uint64_t> PromptChunkKeys(const std::vector<std::int32_t>& tokens) {
  std::vector<std::uint64_t> keys;
  std::uint64_t parent = Mix(0);
  const std::size_t full_chunks = tokens.size() / kReuseChunkTokens;
  for (std::size_t chunk = 0; chunk < full_chunks; ++chunk) {
    std::uint64_t key = parent;
    for (std::size_t i = 0; i < static_cast<std::size_t>(kReuseChunkTokens); ++i) {
      key = Mix(key ^ static_cast<std::uint32_t>(tokens[chunk * kReuseChunkTokens + i]));
    }
    keys.push_back(key);
    parent = key;
  }
  return keys;
}

ReuseOpportunity ComputeReuseOpportunity(const std::vector<PromptTokens>& prompts) {
  std::unordered_map<std::string, std::unordered_set<std::uint64_t>> seen_by_user;
  std::unordered_set<std::uint64_t> seen_any;
  double total_tokens = 0;
  double same_user_tokens = 0;
  double any_user_tokens = 0;
  for (const PromptTokens& prompt : prompts) {
    total_tokens += static_cast<double>(prompt.token_count);
    const std::vector<std::uint64_t>& keys = prompt.chunk_keys;
    std::unordered_set<std::uint64_t>& user_seen = seen_by_user[prompt.user_id];
    // Check every chunk against earlier requests before recording this one's.
    for (std::uint64_t key : keys) {
      if (user_seen.count(key) > 0) same_user_tokens += kReuseChunkTokens;
      if (seen_any.count(key) > 0) any_user_tokens += kReuseChunkTokens;
    }
    user_seen.insert(keys.begin(), keys.end());
    seen_any.insert(keys.begin(), keys.end());
  }
  ReuseOpportunity out;
  if (total_tokens > 0) {
    out.same_user_pct = same_user_tokens / total_tokens * 100.0;
    out.any_user_pct = any_user_tokens / total_tokens * 100.0;
  }
  return out;
}

}  // namespace kvbench::agent::results
