// Hand-broken inputs written to a temp dir: each is INVALID_ARGUMENT naming file, line (or
// simulation/message) and field.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "agent/datasets/dataset_loader.h"
#include "tests/support/temp_dir.h"

namespace kvbench::datasets {
namespace {

// A minimal tau2 Results document whose first simulation has `messages`.
std::string Tau2Doc(const std::string& messages) {
  return R"({"info": {"agent_info": {"llm": "m"}, "environment_info": {"domain_name": "airline",
 "policy": "P"}}, "simulations": [{"id": "s0", "task_id": "1", "trial": 0, "messages": )" +
         messages + "}]}";
}

const std::string kGreeting =
    R"({"role": "assistant", "content": "Hi!", "usage": null, "timestamp": "2025-08-01T16:20:40.0"})";
const std::string kUser =
    R"({"role": "user", "content": "help", "usage": {"completion_tokens": 9}, "timestamp": "2025-08-01T16:20:44.0"})";

struct BrokenCase {
  std::string name;
  std::string code;
  std::string file;
  std::string content;
  std::string expected;  // what the message says after the file's path
};

std::vector<BrokenCase> BrokenCases() {
  const std::string row =
      R"({"session_id": "a", "model": "m", "input": [{"role": "user", "content": "x"}], "output_length": 5, "pre_gap": 0.0})";
  const std::string row_b =
      R"({"session_id": "b", "model": "m", "input": [{"role": "user", "content": "x"}], "output_length": 5})";
  return {
      {"sammshen bad JSON line", "sammshen", "s.jsonl", row + "\n{\"session_id\": \n", ":2: invalid JSON"},
      {"sammshen input not a list", "sammshen", "s.jsonl",
       row + "\n" + row + "\n" + R"({"session_id": "a", "input": "hi", "output_length": 5})" + "\n",
       ":3: field \"input\": expected a non-empty list of messages"},
      {"sammshen missing output_length", "sammshen", "s.jsonl",
       R"({"session_id": "a", "input": [{"role": "user", "content": "x"}]})",
       ":1: field \"output_length\": missing"},
      {"sammshen output_length wrong type", "sammshen", "s.jsonl",
       R"({"session_id": "a", "input": [{"role": "user"}], "output_length": "5"})",
       ":1: field \"output_length\": expected an integer"},
      {"sammshen unknown role", "sammshen", "s.jsonl",
       R"({"session_id": "a", "input": [{"role": "user"}, {"role": "robot"}], "output_length": 5})",
       ":1: field \"input[1].role\": unknown role \"robot\""},
      {"sammshen session reappears", "sammshen", "s.jsonl", row + "\n" + row_b + "\n" + row + "\n",
       ":3: field \"session_id\": session \"a\" reappears after other sessions (its rows were at "
       "lines 1-1)"},
      {"sammshen empty file", "sammshen", "s.jsonl", "\n", ": no rows"},
      {"tau2 bad JSON", "tau2-bench-v1", "r.json", "{\n\"info\": {\n,}", ":3: invalid JSON"},
      {"tau2 missing policy", "tau2-bench-v1", "r.json",
       R"({"info": {"environment_info": {}}, "simulations": []})",
       ": field \"info.environment_info.policy\": expected a string"},
      {"tau2 arguments not an object", "tau2-bench-v1", "r.json",
       Tau2Doc("[" + kGreeting + "," + kUser +
               R"(, {"role": "assistant", "content": null, "usage": {"completion_tokens": 3}, "timestamp": "2025-08-01T16:20:45.0", "tool_calls": [{"id": "c", "name": "f", "arguments": "{}"}]}])"),
       "#0/2 tool_calls[0]: field \"arguments\": expected a JSON object"},
      {"tau2 completion_tokens wrong type", "tau2-bench-v1", "r.json",
       Tau2Doc("[" + kGreeting + "," + kUser +
               R"(, {"role": "assistant", "content": "ok", "usage": {"completion_tokens": "3"}, "timestamp": "2025-08-01T16:20:45.0"}])"),
       "#0/2: field \"usage.completion_tokens\": expected a non-negative integer"},
      {"tau2 bad timestamp", "tau2-bench-v1", "r.json",
       Tau2Doc(R"([{"role": "assistant", "content": "Hi!", "timestamp": "yesterday"}])"),
       "#0/0: field \"timestamp\": expected YYYY-MM-DDTHH:MM:SS[.ffffff]"},
      {"trace input not a string", "lmcache-agent-trace", "t.jsonl",
       R"({"timestamp": 2, "input": "a"})" "\n" R"({"timestamp": 1, "input": ["a"]})",
       ":2: field \"input\": expected a string"},
      {"trace missing timestamp", "lmcache-agent-trace", "t.jsonl", R"({"input": "a"})",
       ":1: field \"timestamp\": missing"},
      {"trace two sessions in one file", "lmcache-agent-trace", "t.jsonl",
       R"({"timestamp": 1, "input": "a", "session_id": "x"})" "\n"
       R"({"timestamp": 2, "input": "b", "session_id": "y"})",
       ":2: field \"session_id\": \"y\" differs from \"x\" at line 1"},
      {"trace empty session", "lmcache-agent-trace", "t.jsonl", "", ": empty session"},
      {"openai no assistant turn", "openai-messages", "o.jsonl",
       R"({"messages": [{"role": "user", "content": "a"}]})",
       ":1: field \"messages\": expected an assistant message"},
      {"openai messages missing", "openai-messages", "o.jsonl", R"({"id": "x"})",
       ":1: field \"messages\": missing"},
      {"sharegpt unknown speaker", "sharegpt", "g.json",
       R"([{"id": "c", "conversations": [{"from": "human", "value": "a"}, {"from": "bing", "value": "b"}]}])",
       "#0/1: field \"from\": unknown speaker \"bing\""},
      {"sharegpt value not a string", "sharegpt", "g.json",
       R"([{"id": "c", "conversations": [{"from": "human", "value": 3}]}])",
       "#0/0: field \"value\": expected a string"},
  };
}

TEST_CASE("Loader rejects hand-broken files naming file line and field") {
  for (const BrokenCase& c : BrokenCases()) {
    SECTION(c.name) {
      kvbench::testing::TempDir dir;
      const std::string path = dir.WriteFile(c.file, c.content);
      absl::StatusOr<Dataset> dataset = LoadDataset(c.code, path);
      REQUIRE_FALSE(dataset.ok());
      INFO(dataset.status().message());
      CHECK(dataset.status().code() == absl::StatusCode::kInvalidArgument);
      CHECK(std::string(dataset.status().message()).rfind(path + c.expected, 0) == 0);
    }
  }
}

TEST_CASE("Tau2 simulations without messages are skipped and counted") {
  kvbench::testing::TempDir dir;
  const std::string doc = R"({"info": {"environment_info": {"policy": "P"}}, "simulations": [
    {"id": "voice", "messages": null},
    {"id": "s1", "task_id": "7", "trial": 1, "termination_reason": "user_stop", "messages": [)" +
                          kGreeting + "," + kUser +
                          R"(, {"role": "assistant", "content": "ok", "usage": {"completion_tokens": 3}, "timestamp": "2025-08-01T16:20:45.5"}]},
    {"id": "s2", "termination_reason": "infrastructure_error", "messages": [)" + kGreeting + "]}]}";
  const std::string path = dir.WriteFile("r.json", doc);
  absl::StatusOr<Dataset> dataset = LoadDataset("tau2-bench-v1", path);
  REQUIRE(dataset.ok());
  CHECK(dataset->skipped_sessions == 2);
  REQUIRE(dataset->skip_reasons.size() == 2);
  CHECK(dataset->skip_reasons[0] == path + "#0: messages is null (no text dialogue, e.g. a voice run)");
  CHECK(dataset->skip_reasons[1] ==
        path + "#2: no agent LLM call (termination_reason infrastructure_error)");
  REQUIRE(dataset->sessions.size() == 1);
  const Session& session = dataset->sessions[0];
  CHECK(session.id == "tau2__tau2__task7__trial1__");
  REQUIRE(session.rounds.size() == 1);
  CHECK(session.rounds[0].output_tokens == 3);
  CHECK(session.rounds[0].messages.size() == 3);  // system, greeting, user
  CHECK(session.rounds[0].messages[0]["content"].get<std::string>().find("<policy>\nP\n</policy>") !=
        std::string::npos);
  CHECK(session.rounds[0].origin == path + "#1/2");
}

}  // namespace
}  // namespace kvbench::datasets
