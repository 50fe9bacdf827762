#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/datasets/conversation.h"

namespace kvbench::datasets {

// Which virtual users a replay runs, and a sentence saying how they were chosen.
struct UserSelection {
  std::vector<VirtualUser> users;  // in the order the replay hands them to its slots
  std::string description;         // SessionCounts.selection, e.g. "all 16 virtual users"
};

// A uniform draw in [0, n) from a 64-bit generator's raw outputs (rejection sampling, so no
// modulo bias), and a Fisher-Yates shuffle built on it. Both depend only on the generator's
// output sequence, which the C++ standard specifies for std::mt19937_64, never on a standard
// library's distributions or std::shuffle (which differ between libraries). Pure given `next`.
template <typename Generator>
uint64_t UniformBelow(Generator& next, uint64_t n) {
  if (n <= 1) return 0;
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // draws >= limit would bias the modulo
  for (;;) {
    const uint64_t draw = next();
    if (draw < limit) return draw % n;
  }
}

template <typename T, typename Generator>
void SeededShuffle(std::vector<T>& items, Generator& next) {
  for (size_t i = items.size(); i > 1; --i) {
    std::swap(items[i - 1], items[static_cast<size_t>(UniformBelow(next, i))]);
  }
}

// Chooses `requested` of `users` (ChunkIntoUsers' output, dataset order), in a seeded order.
// Pure.
// - requested >= users.size() (or < 0): all of them, in the order the spread below gives them
//   ("all 32 virtual users, in a seeded order (seed 1)"): at a concurrency below the users, the
//   seed decides which start together, so repeats (seed + r - 1) differ as runs of a real
//   workload would even when every user runs.
// - Otherwise a seeded spread (std::mt19937_64 seeded with `seed`): users are bucketed by trace
//   kind (VirtualUser.kind; "" is one bucket of its own), kinds in order of first appearance;
//   within a kind, first chunks of sessions come before second chunks and so on, the users of one
//   chunk index shuffled by the seed. The pick then goes round-robin over the kinds, taking each
//   kind's next user, until `requested` are chosen (a kind that runs out is skipped).
//   So a few users come from as many kinds and sessions as there are, and the same seed always
//   picks the same users in the same order.
UserSelection SelectUsers(std::vector<VirtualUser> users, int requested, uint64_t seed);

}  // namespace kvbench::datasets
