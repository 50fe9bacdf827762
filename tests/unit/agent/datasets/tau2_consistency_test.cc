// The tau2 loader against the derived JSONL that the README says was converted from the same
// Results file: same sessions, rounds, message lists, output lengths and pre-gaps.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "agent/datasets/dataset_loader.h"

namespace kvbench::datasets {
namespace {

const std::string kTestData = KV_TEST_DATASETS;
const std::string kDemoDataDir = KV_DEMO_DATASETS;

TEST_CASE("Tau2 rounds equal the derived sammshen rows of the first 8 sessions") {
  absl::StatusOr<Dataset> tau2 =
      LoadDataset("tau2-bench-v1", kDemoDataDir + "/tau2_airline_gpt-4.1_results.json");
  absl::StatusOr<Dataset> rows =
      LoadDataset("sammshen", kTestData + "/tau2_airline_gpt-4.1_lmcache_format.jsonl");
  REQUIRE(tau2.ok());
  REQUIRE(rows.ok());
  REQUIRE(rows->sessions.size() == 8);
  int compared = 0;
  for (size_t s = 0; s < rows->sessions.size(); ++s) {
    const Session& derived = rows->sessions[s];
    const Session& ours = tau2->sessions[s];
    CHECK(ours.id == derived.id);
    CHECK(ours.model == derived.model);
    REQUIRE(ours.rounds.size() == derived.rounds.size());
    for (size_t r = 0; r < ours.rounds.size(); ++r) {
      INFO(ours.rounds[r].origin << " vs " << derived.rounds[r].origin);
      CHECK(ours.rounds[r].messages == derived.rounds[r].messages);
      CHECK(ours.rounds[r].output_tokens == derived.rounds[r].output_tokens);
      CHECK(std::abs(ours.rounds[r].pre_gap_s - derived.rounds[r].pre_gap_s) < 1e-3);
      ++compared;
    }
  }
  CHECK(compared == 87);
}

TEST_CASE("Tau2 greeting is context and not a round") {
  absl::StatusOr<Dataset> tau2 =
      LoadDataset("tau2-bench-v1", kDemoDataDir + "/tau2_airline_gpt-4.1_results.json");
  REQUIRE(tau2.ok());
  for (const Session& session : tau2->sessions) {
    const nlohmann::json& first = session.rounds.front().messages;
    REQUIRE(first.size() >= 3);
    CHECK(first[0]["role"] == "system");
    CHECK(first[0]["content"].get<std::string>().rfind("<instructions>\nYou are a customer", 0) == 0);
    CHECK(first[1] == nlohmann::json({{"role", "assistant"}, {"content", "Hi! How can I help you today?"}}));
    CHECK(first[2]["role"] == "user");
    CHECK(session.rounds.front().pre_gap_s == 0);
  }
}

TEST_CASE("Tau2 tool calls are converted to OpenAI form") {
  absl::StatusOr<Dataset> tau2 =
      LoadDataset("tau2-bench-v1", kDemoDataDir + "/tau2_airline_gpt-4.1_results.json");
  REQUIRE(tau2.ok());
  const nlohmann::json& messages = tau2->sessions[0].rounds.back().messages;
  int calls = 0;
  int results = 0;
  for (const nlohmann::json& message : messages) {
    if (message.contains("tool_calls")) {
      for (const nlohmann::json& call : message["tool_calls"]) {
        CHECK(call["type"] == "function");
        CHECK(call["id"].is_string());
        CHECK(call["function"]["name"].is_string());
        REQUIRE(call["function"]["arguments"].is_string());
        CHECK(nlohmann::json::parse(call["function"]["arguments"].get<std::string>()).is_object());
        ++calls;
      }
    }
    if (message["role"] == "tool") {
      CHECK(message["tool_call_id"].is_string());
      CHECK(message["name"].is_string());
      ++results;
    }
  }
  CHECK(calls > 0);
  CHECK(results == calls);
  // The first call of session 0 (get_user_details) with Python's json.dumps spacing.
  bool found = false;
  for (const nlohmann::json& message : messages) {
    if (!message.contains("tool_calls")) continue;
    CHECK(message["tool_calls"][0]["function"]["arguments"] == "{\"user_id\": \"james_lee_6136\"}");
    found = true;
    break;
  }
  CHECK(found);
}

}  // namespace
}  // namespace kvbench::datasets
