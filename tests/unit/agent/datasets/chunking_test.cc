// ChunkIntoUsers, table-driven on synthetic datasets: chunk boundaries, leftovers, ids, minimum.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "agent/datasets/dataset_loader.h"

namespace kvbench::datasets {
namespace {

Dataset MakeDataset(const std::string& code, const std::vector<int>& rounds_per_session) {
  Dataset dataset;
  dataset.code = code;
  for (size_t s = 0; s < rounds_per_session.size(); ++s) {
    Session session;
    session.id = "s" + std::to_string(s);
    session.rounds.resize(static_cast<size_t>(rounds_per_session[s]));
    dataset.sessions.push_back(std::move(session));
  }
  return dataset;
}

struct ChunkCase {
  std::vector<int> rounds_per_session;
  int num_rounds;
  std::vector<std::string> user_ids;
  std::vector<int> first_rounds;
};

TEST_CASE("Chunk boundaries and leftover dropping") {
  const std::vector<ChunkCase> cases = {
      {{5}, 5, {"0000-00"}, {0}},
      {{4}, 5, {}, {}},                                   // shorter than a chunk: no user
      {{11}, 5, {"0000-00", "0000-01"}, {0, 5}},          // leftover of 1 dropped
      {{10, 3, 7}, 5, {"0000-00", "0000-01", "0002-00"}, {0, 5, 0}},
      {{16}, 8, {"0000-00", "0000-01"}, {0, 8}},
      {{}, 5, {}, {}},
  };
  for (const ChunkCase& c : cases) {
    const Dataset dataset = MakeDataset("tau2-bench-v1", c.rounds_per_session);
    absl::StatusOr<std::vector<VirtualUser>> users =
        ChunkIntoUsers(dataset, c.num_rounds, kDefaultMinChunkRounds);
    REQUIRE(users.ok());
    std::vector<std::string> ids;
    std::vector<int> firsts;
    for (const VirtualUser& user : *users) {
      ids.push_back(user.user_id);
      firsts.push_back(user.first_round);
      REQUIRE(user.rounds.size() == static_cast<size_t>(c.num_rounds));
      const Session& session = dataset.sessions[static_cast<size_t>(std::stoi(user.user_id))];
      CHECK(user.session_id == session.id);
      for (int r = 0; r < c.num_rounds; ++r) {
        CHECK(user.rounds[static_cast<size_t>(r)] ==
              &session.rounds[static_cast<size_t>(user.first_round + r)]);
      }
    }
    CHECK(ids == c.user_ids);
    CHECK(firsts == c.first_rounds);
  }
}

TEST_CASE("Chunk below the minimum length is a failed precondition except for sammshen") {
  const Dataset tau2 = MakeDataset("tau2-bench-v1", {10});
  absl::StatusOr<std::vector<VirtualUser>> refused = ChunkIntoUsers(tau2, 3, 5);
  CHECK(refused.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(refused.status().message() ==
        "num_rounds 3 is below the minimum chunk length 5 of dataset tau2-bench-v1: it would "
        "yield zero virtual users");
  const Dataset sammshen = MakeDataset("sammshen", {10});
  absl::StatusOr<std::vector<VirtualUser>> allowed = ChunkIntoUsers(sammshen, 3, 5);
  REQUIRE(allowed.ok());
  CHECK(allowed->size() == 3);
  CHECK(ChunkIntoUsers(sammshen, 0, 5).status().code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kvbench::datasets
