#include "agent/datasets/user_selection.h"

#include <map>
#include <random>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kvbench::datasets {
namespace {

// One kind's users in pick order: chunk index ascending, each chunk index shuffled.
std::vector<VirtualUser> KindOrder(std::vector<VirtualUser> users, std::mt19937_64& generator) {
  std::map<int, std::vector<VirtualUser>> by_chunk;
  for (VirtualUser& user : users) by_chunk[user.chunk_index].push_back(std::move(user));
  std::vector<VirtualUser> out;
  for (auto& [chunk, group] : by_chunk) {
    SeededShuffle(group, generator);
    for (VirtualUser& user : group) out.push_back(std::move(user));
  }
  return out;
}

std::string Plural(size_t n, const char* word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

std::string Describe(const std::vector<VirtualUser>& chosen, size_t ceiling, uint64_t seed) {
  if (chosen.empty()) return absl::StrCat("0 of ", Plural(ceiling, "virtual user"));
  std::set<std::string> kinds;
  std::set<std::string> sessions;
  for (const VirtualUser& user : chosen) {
    kinds.insert(user.kind);
    sessions.insert(user.session_id);
  }
  std::string spread = kinds.size() > 1 || !kinds.begin()->empty()
                           ? absl::StrCat(Plural(kinds.size(), "trace kind"), " and ")
                           : "";
  return absl::StrCat(chosen.size(), " of ", ceiling, " virtual users, seeded (seed ", seed,
                      "), spread over ", spread, Plural(sessions.size(), "session"));
}

}  // namespace

UserSelection SelectUsers(std::vector<VirtualUser> users, int requested, uint64_t seed) {
  UserSelection selection;
  const size_t ceiling = users.size();
  const bool all = requested < 0 || static_cast<size_t>(requested) >= ceiling;
  if (all) requested = static_cast<int>(ceiling);
  std::vector<std::string> kind_order;
  std::map<std::string, std::vector<VirtualUser>> by_kind;
  for (VirtualUser& user : users) {
    if (by_kind.count(user.kind) == 0) kind_order.push_back(user.kind);
    by_kind[user.kind].push_back(std::move(user));
  }
  std::mt19937_64 generator(seed);
  std::vector<std::vector<VirtualUser>> queues;
  for (const std::string& kind : kind_order) {
    queues.push_back(KindOrder(std::move(by_kind[kind]), generator));
  }
  std::vector<size_t> next(queues.size(), 0);
  while (selection.users.size() < static_cast<size_t>(requested)) {
    for (size_t k = 0; k < queues.size() && selection.users.size() < static_cast<size_t>(requested);
         ++k) {
      if (next[k] < queues[k].size()) selection.users.push_back(std::move(queues[k][next[k]++]));
    }
  }
  // All of them still come in the seeded order: which users start together and which wait for
  // a slot is what one repeat's seed changes (on the simulator, whose runs otherwise repeat
  // exactly, the only thing).
  selection.description = all ? absl::StrCat("all ", Plural(ceiling, "virtual user"),
                                             ", in a seeded order (seed ", seed, ")")
                              : Describe(selection.users, ceiling, seed);
  return selection;
}

}  // namespace kvbench::datasets
