#include "agent/results/working_set.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace kvbench::results {
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

}  // namespace kvbench::results
