// Session, round and virtual-user counts of the real files in tests/data/datasets and deploy/examples/datasets.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "agent/datasets/dataset_loader.h"
#include "agent/datasets/dataset_stats.h"

namespace kvbench::datasets {
namespace {

const std::string kData = KV_TEST_DATASETS;
const std::string kDemoData = KV_DEMO_DATASETS;

struct RealCase {
  std::string code;
  std::string path;
  int sessions;
  int rounds;
  int skipped;
  std::vector<int> rounds_per_session;  // empty: not checked
  int users_5;
  int users_8;
};

std::vector<RealCase> RealCases() {
  return {
      {"sammshen", kData + "/tau2_airline_gpt-4.1_lmcache_format.jsonl", 8, 87, 0,
       {8, 8, 10, 13, 15, 10, 13, 10}, 15, 8},
      {"tau2-bench-v1", kDemoData + "/tau2_airline_gpt-4.1_results.json", 20, 206, 0,
       {8, 8, 10, 13, 15, 10, 13, 10, 9, 8, 10, 13, 9, 9, 9, 18, 13, 9, 5, 7}, 32, 19},
      {"lmcache-agent-trace", kData + "/lmcache-agent-trace", 11, 111, 0,
       {13, 13, 10, 11, 6, 13, 9, 9, 13, 8, 6}, 17, 9},
      {"lmcache-agent-trace", kData + "/lmcache-agent-trace/magagent", 4, 47, 0, {}, 8, 4},
      {"lmcache-agent-trace", kData + "/lmcache-agent-trace/miniswe", 7, 64, 0, {}, 9, 5},
  };
}

TEST_CASE("Dataset real files give the recorded session round and user counts") {
  for (const RealCase& c : RealCases()) {
    SECTION(c.path) {
      absl::StatusOr<Dataset> dataset = LoadDataset(c.code, c.path);
      REQUIRE(dataset.ok());
      CHECK(dataset->code == c.code);
      CHECK(dataset->sessions.size() == static_cast<size_t>(c.sessions));
      CHECK(dataset->skipped_sessions == c.skipped);
      std::vector<int> per_session;
      int rounds = 0;
      for (const Session& session : dataset->sessions) {
        per_session.push_back(static_cast<int>(session.rounds.size()));
        rounds += static_cast<int>(session.rounds.size());
        CHECK_FALSE(session.id.empty());
      }
      CHECK(rounds == c.rounds);
      if (!c.rounds_per_session.empty()) CHECK(per_session == c.rounds_per_session);

      const bool generic = c.code != "sammshen";
      absl::StatusOr<std::vector<VirtualUser>> one = ChunkIntoUsers(*dataset, 1, kDefaultMinChunkRounds);
      CHECK(one.ok() == !generic);
      if (one.ok()) CHECK(one->size() == static_cast<size_t>(c.rounds));
      CHECK(ChunkIntoUsers(*dataset, 5, kDefaultMinChunkRounds)->size() == static_cast<size_t>(c.users_5));
      CHECK(ChunkIntoUsers(*dataset, 8, kDefaultMinChunkRounds)->size() == static_cast<size_t>(c.users_8));

      const DatasetStats stats = ComputeStats(*dataset, 5, kDefaultMinChunkRounds);
      const nlohmann::json json = stats.ToJson();
      CHECK(json["sessions"] == c.sessions);
      CHECK(json["rounds"] == c.rounds);
      CHECK(json["virtual_users"] == c.users_5);
    }
  }
}

TEST_CASE("Dataset stats summarize rounds per session of the sammshen file") {
  absl::StatusOr<Dataset> dataset =
      LoadDataset("sammshen", kData + "/tau2_airline_gpt-4.1_lmcache_format.jsonl");
  REQUIRE(dataset.ok());
  const DatasetStats stats = ComputeStats(*dataset, 8, kDefaultMinChunkRounds);
  CHECK(stats.rounds_per_session.min == 8);
  CHECK(stats.rounds_per_session.median == 10);
  CHECK(stats.rounds_per_session.max == 15);
  CHECK(stats.virtual_users == 8);
  CHECK(stats.messages_per_round.min >= 3);  // system + greeting + first user message
  const DatasetStats short_chunks = ComputeStats(*dataset, 3, 5);
  CHECK(short_chunks.virtual_users == 26);  // sammshen has no minimum chunk length
}

TEST_CASE("Trace loader sorts lines by timestamp and keeps the input as one user message") {
  absl::StatusOr<Dataset> dataset =
      LoadDataset("lmcache-agent-trace", kData + "/lmcache-agent-trace/miniswe");
  REQUIRE(dataset.ok());
  const Session& first = dataset->sessions.front();
  CHECK(first.id == "189f0222310bd8eee310f204e91b9c84");
  for (const Session& session : dataset->sessions) {
    for (const Round& round : session.rounds) {
      REQUIRE(round.messages.size() == 1);
      CHECK(round.messages[0]["role"] == "user");
      CHECK(round.messages[0]["content"].is_string());
      CHECK(round.output_tokens == 0);
    }
  }
  // The file's lines are out of order: the first round after sorting is not always line 1.
  bool reordered = false;
  for (const Session& session : dataset->sessions) {
    for (size_t i = 0; i < session.rounds.size(); ++i) {
      const std::string suffix = ":" + std::to_string(i + 1);
      const std::string& origin = session.rounds[i].origin;
      if (origin.compare(origin.size() - suffix.size(), suffix.size(), suffix) != 0) reordered = true;
    }
  }
  CHECK(reordered);
}

TEST_CASE("Dataset loader rejects unknown codes and missing paths") {
  absl::StatusOr<Dataset> unknown = LoadDataset("parquet", kData);
  CHECK(unknown.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(unknown.status().message()).find("sharegpt") != std::string::npos);
  CHECK(LoadDataset("sammshen", kData + "/no_such_file.jsonl").status().code() ==
        absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kvbench::datasets
