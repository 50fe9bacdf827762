#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvbench::datasets {

// One recorded LLM call: the message list it sent, in OpenAI chat format (roles system, user,
// assistant, tool; tool_calls with JSON-string arguments; tool_call_id; name), and what it
// produced. Rounds of a session are in chronological order; round k+1's messages extend round k's.
struct Round {
  nlohmann::json messages = nlohmann::json::array();
  int output_tokens = 0;  // recorded completion length in tokens (0: unknown)
  double pre_gap_s = 0;   // think/tool time before this call, as recorded (0 when unknown)
  std::string origin;     // "file:line" (or "file#simulation/message") the round came from
};

// One recorded conversation (a session of one agent run).
struct Session {
  std::string id;
  std::string model;  // the model that produced the recording, when known
  std::vector<Round> rounds;
  // The kind of trace, when the loader knows it (lmcache-agent-trace: the subfolder, e.g.
  // "magagent"); "" = unknown. Seeded selection spreads the users over kinds (user_selection.h).
  std::string kind;
};

// A dataset read into memory: sessions in file order, and what was skipped and why (nothing is
// skipped silently: every skip is counted here and reported by `kv-runner inspect`).
struct Dataset {
  std::string code;  // sammshen, tau2-bench-v1, lmcache-agent-trace, openai-messages, sharegpt
  std::vector<Session> sessions;
  int skipped_sessions = 0;
  std::vector<std::string> skip_reasons;  // one line per skip, with its origin
};

// A chunk of `num_rounds` consecutive rounds of one session, replayed by one virtual user.
struct VirtualUser {
  std::string user_id;  // stable: "<session index>-<chunk index>", e.g. "0003-01"
  std::string session_id;
  std::string kind;                  // its session's kind ("" = unknown)
  int chunk_index = 0;               // which chunk of its session (0 = the session's start)
  int first_round = 0;               // index of its first round within the session
  std::vector<const Round*> rounds;  // points into the Dataset, which must outlive the user
};

}  // namespace kvbench::datasets
