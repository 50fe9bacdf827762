#include "agent/results/same_user_reuse.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_set>
#include <utility>

#include "agent/results/reuse_opportunity.h"

namespace kvbench::agent::results {
namespace {

// Per prompt (user, round), its same-user reusable tokens: the leading chunks found among the
// chunks of that user's earlier rounds.
std::map<std::pair<std::string, int>, int64_t> ReusableByPrompt(
    const std::vector<CountedPrompt>& prompts) {
  std::map<std::string, std::vector<const CountedPrompt*>> by_user;
  for (const CountedPrompt& prompt : prompts) by_user[prompt.user_id].push_back(&prompt);
  std::map<std::pair<std::string, int>, int64_t> reusable;
  for (auto& [user, rounds] : by_user) {
    std::sort(rounds.begin(), rounds.end(),
              [](const CountedPrompt* a, const CountedPrompt* b) { return a->round < b->round; });
    std::unordered_set<uint64_t> seen;
    for (const CountedPrompt* prompt : rounds) {
      int64_t chunks = 0;
      while (chunks < static_cast<int64_t>(prompt->chunk_keys.size()) &&
             seen.count(prompt->chunk_keys[static_cast<size_t>(chunks)]) > 0) {
        ++chunks;
      }
      reusable[{user, prompt->round}] = chunks * kReuseChunkTokens;
      seen.insert(prompt->chunk_keys.begin(), prompt->chunk_keys.end());
    }
  }
  return reusable;
}

}  // namespace

std::optional<SameUserReuse> ComputeSameUserReuse(const std::vector<runner::RequestRecord>& records,
                                                  const std::vector<CountedPrompt>& prompts) {
  if (prompts.empty()) return std::nullopt;
  const auto reusable = ReusableByPrompt(prompts);
  SameUserReuse out;
  for (const runner::RequestRecord& record : records) {
    if (!record.ok()) continue;
    auto it = reusable.find({record.user_id, record.round});
    if (it == reusable.end()) continue;
    out.reusable_tokens += it->second;
    if (record.cached_tokens) {
      out.cached_tokens =
          out.cached_tokens.value_or(0) + std::min<int64_t>(*record.cached_tokens, it->second);
    }
  }
  return out;
}

}  // namespace kvbench::agent::results
