#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/datasets/dataset_loader.h"

namespace kvbench::datasets {

absl::StatusOr<std::vector<VirtualUser>> ChunkIntoUsers(const Dataset& dataset, int num_rounds,
                                                        int min_chunk_rounds) {
  if (num_rounds < 1) {
    return absl::InvalidArgumentError(absl::StrCat("num_rounds ", num_rounds, " must be >= 1"));
  }
  if (dataset.code != "sammshen" && num_rounds < min_chunk_rounds) {
    return absl::FailedPreconditionError(absl::StrCat(
        "num_rounds ", num_rounds, " is below the minimum chunk length ", min_chunk_rounds,
        " of dataset ", dataset.code, ": it would yield zero virtual users"));
  }
  std::vector<VirtualUser> users;
  const size_t chunk = static_cast<size_t>(num_rounds);
  for (size_t s = 0; s < dataset.sessions.size(); ++s) {
    const Session& session = dataset.sessions[s];
    for (size_t c = 0; (c + 1) * chunk <= session.rounds.size(); ++c) {
      VirtualUser user;
      user.user_id = absl::StrFormat("%04d-%02d", s, c);
      user.session_id = session.id;
      user.kind = session.kind;
      user.chunk_index = static_cast<int>(c);
      user.first_round = static_cast<int>(c * chunk);
      for (size_t r = c * chunk; r < (c + 1) * chunk; ++r)
        user.rounds.push_back(&session.rounds[r]);
      users.push_back(std::move(user));
    }
  }
  return users;
}

}  // namespace kvbench::datasets
