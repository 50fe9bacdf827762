#include "agent/results/working_set.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "agent/results/reuse_opportunity.h"

namespace kvbench::agent::results {
namespace {

// A change of the working set at time t_s.
struct Change {
  double t_s = 0;
  int64_t delta = 0;
};

// The changes one user makes: its context at each send, then its release at its end.
void AddUserChanges(std::vector<const runner::RequestRecord*> rounds, std::vector<Change>* out) {
  std::sort(rounds.begin(), rounds.end(), [](const auto* a, const auto* b) {
    return std::tie(a->sent_s, a->round) < std::tie(b->sent_s, b->round);
  });
  int64_t context = 0;
  double end_s = rounds.back()->sent_s;
  for (const runner::RequestRecord* record : rounds) {
    const int64_t next = int64_t{record->prompt_tokens} + record->output_tokens;
    out->push_back({record->sent_s, next - context});
    context = next;
    end_s = std::max(end_s, record->end_s);
  }
  out->push_back({end_s, -context});
}

}  // namespace

int64_t PeakWorkingSetTokens(const std::vector<runner::RequestRecord>& records) {
  std::map<std::string, std::vector<const runner::RequestRecord*>> by_user;
  for (const runner::RequestRecord& record : records) {
    if (record.prompt_tokens == 0 && record.output_tokens == 0) continue;
    by_user[record.user_id].push_back(&record);
  }
  std::vector<Change> changes;
  for (auto& [user, rounds] : by_user) AddUserChanges(std::move(rounds), &changes);
  std::sort(changes.begin(), changes.end(),
            [](const Change& a, const Change& b) { return a.t_s < b.t_s; });
  int64_t current = 0;
  int64_t peak = 0;
  for (size_t i = 0; i < changes.size(); ++i) {
    current += changes[i].delta;
    const bool last_at_this_instant =
        i + 1 == changes.size() || changes[i + 1].t_s != changes[i].t_s;
    if (last_at_this_instant) peak = std::max(peak, current);
  }
  return peak;
}

namespace {

// A live user's context: shared chunks (by key) and tokens of its own (tail and output).
struct Context {
  const std::vector<uint64_t>* keys = nullptr;
  int64_t own_tokens = 0;
};

// A user's context changes to `context` at t_s (an empty one at its end).
struct ContextChange {
  double t_s = 0;
  std::string user;
  Context context;
};

// The working set of the live users' contexts, each distinct chunk once.
class SharedWorkingSet {
 public:
  void Set(const std::string& user, const Context& context) {
    Context& current = users_[user];
    if (current.keys != nullptr) {
      for (uint64_t key : *current.keys) {
        if (--refs_[key] == 0) refs_.erase(key);
      }
    }
    own_ += context.own_tokens - current.own_tokens;
    current = context;
    if (current.keys != nullptr) {
      for (uint64_t key : *current.keys) ++refs_[key];
    }
  }
  int64_t Tokens() const { return static_cast<int64_t>(refs_.size()) * kReuseChunkTokens + own_; }

 private:
  std::unordered_map<std::string, Context> users_;
  std::unordered_map<uint64_t, int> refs_;
  int64_t own_ = 0;
};

void AddSharedChanges(const std::string& user, std::vector<const runner::RequestRecord*> rounds,
                      const std::map<std::pair<std::string, int>, const CountedPrompt*>& prompts,
                      std::vector<ContextChange>* out) {
  std::sort(rounds.begin(), rounds.end(), [](const auto* a, const auto* b) {
    return std::tie(a->sent_s, a->round) < std::tie(b->sent_s, b->round);
  });
  double end_s = rounds.back()->sent_s;
  for (const runner::RequestRecord* record : rounds) {
    Context context;
    auto prompt = prompts.find({user, record->round});
    if (prompt != prompts.end()) {
      const CountedPrompt& counted = *prompt->second;
      context.keys = &counted.chunk_keys;
      context.own_tokens =
          counted.tokens - static_cast<int64_t>(counted.chunk_keys.size()) * kReuseChunkTokens;
    } else {
      context.own_tokens = record->prompt_tokens;
    }
    context.own_tokens += record->output_tokens;
    out->push_back({record->sent_s, user, context});
    end_s = std::max(end_s, record->end_s);
  }
  out->push_back({end_s, user, Context()});
}

}  // namespace

int64_t PeakWorkingSetTokens(const std::vector<runner::RequestRecord>& records,
                             const std::vector<CountedPrompt>& prompts) {
  if (prompts.empty()) return PeakWorkingSetTokens(records);
  std::map<std::pair<std::string, int>, const CountedPrompt*> by_round;
  for (const CountedPrompt& prompt : prompts) by_round[{prompt.user_id, prompt.round}] = &prompt;
  std::map<std::string, std::vector<const runner::RequestRecord*>> by_user;
  for (const runner::RequestRecord& record : records) {
    if (record.prompt_tokens == 0 && record.output_tokens == 0) continue;
    by_user[record.user_id].push_back(&record);
  }
  std::vector<ContextChange> changes;
  for (auto& [user, rounds] : by_user)
    AddSharedChanges(user, std::move(rounds), by_round, &changes);
  std::stable_sort(changes.begin(), changes.end(),
                   [](const ContextChange& a, const ContextChange& b) { return a.t_s < b.t_s; });
  SharedWorkingSet working_set;
  int64_t peak = 0;
  for (size_t i = 0; i < changes.size(); ++i) {
    working_set.Set(changes[i].user, changes[i].context);
    const bool last_at_this_instant =
        i + 1 == changes.size() || changes[i + 1].t_s != changes[i].t_s;
    if (last_at_this_instant) peak = std::max(peak, working_set.Tokens());
  }
  return peak;
}

}  // namespace kvbench::agent::results
