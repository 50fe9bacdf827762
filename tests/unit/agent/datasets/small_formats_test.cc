// The generic formats without a real sample here (openai-messages, ShareGPT), on small files.
#include <string>

#include <catch2/catch.hpp>

#include "agent/datasets/dataset_loader.h"
#include "tests/support/temp_dir.h"

namespace kvbench::datasets {
namespace {

TEST_CASE("OpenAI messages loader gives a round per assistant message") {
  kvbench::testing::TempDir dir;
  const std::string path = dir.WriteFile(
      "o.jsonl",
      R"({"id": "conv-a", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u1"},)"
      R"( {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}, {"role": "assistant", "content": "a2"}]})"
      "\n\n"
      R"({"messages": [{"role": "assistant", "content": "greeting"}, {"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}]})"
      "\n");
  absl::StatusOr<Dataset> dataset = LoadDataset("openai-messages", path);
  REQUIRE(dataset.ok());
  REQUIRE(dataset->sessions.size() == 2);
  const Session& first = dataset->sessions[0];
  CHECK(first.id == "conv-a");
  REQUIRE(first.rounds.size() == 2);
  CHECK(first.rounds[0].messages.size() == 2);
  CHECK(first.rounds[1].messages.size() == 4);
  CHECK(first.rounds[1].messages[3]["content"] == "u2");
  CHECK(first.rounds[1].origin == path + ":1/4");
  const Session& second = dataset->sessions[1];
  CHECK(second.id == "line3");
  REQUIRE(second.rounds.size() == 1);  // the leading greeting is context
  CHECK(second.rounds[0].messages.size() == 2);
}

TEST_CASE("ShareGPT loader maps speakers and skips conversations without a gpt turn") {
  kvbench::testing::TempDir dir;
  const std::string path = dir.WriteFile("g.json", R"([
    {"id": "c1", "conversations": [{"from": "system", "value": "s"}, {"from": "human", "value": "h1"},
      {"from": "gpt", "value": "g1"}, {"from": "human", "value": "h2"}, {"from": "gpt", "value": "g2"}]},
    {"id": "c2", "conversations": [{"from": "human", "value": "only a question"}]}
  ])");
  absl::StatusOr<Dataset> dataset = LoadDataset("sharegpt", path);
  REQUIRE(dataset.ok());
  REQUIRE(dataset->sessions.size() == 1);
  CHECK(dataset->skipped_sessions == 1);
  REQUIRE(dataset->skip_reasons.size() == 1);
  CHECK(dataset->skip_reasons[0] == path + "#1: no gpt turn after another turn (nothing to replay)");
  const Session& session = dataset->sessions[0];
  CHECK(session.id == "c1");
  REQUIRE(session.rounds.size() == 2);
  const nlohmann::json expected = nlohmann::json::array({{{"role", "system"}, {"content", "s"}},
                                                         {{"role", "user"}, {"content", "h1"}},
                                                         {{"role", "assistant"}, {"content", "g1"}},
                                                         {{"role", "user"}, {"content", "h2"}}});
  CHECK(session.rounds[1].messages == expected);
}

}  // namespace
}  // namespace kvbench::datasets
