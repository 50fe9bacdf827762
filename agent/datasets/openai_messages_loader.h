#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "agent/datasets/conversation.h"

namespace kvbench::datasets {

// Reads JSONL with one conversation per line, {"messages": [...OpenAI chat messages...]} (an
// optional string "id" names the session, else "line<N>"). A Round per assistant message that has
// at least one message before it: its messages = everything before it; output_tokens 0 (unknown).
// A line without such an assistant message is INVALID_ARGUMENT (an empty session).
absl::StatusOr<Dataset> LoadOpenAiMessages(const std::string& path);

// The rounds of one conversation already in OpenAI form: one per assistant message at index > 0
// (a leading assistant message, like a greeting, is context). `origin` prefixes round origins.
std::vector<Round> RoundsOfConversation(const nlohmann::json& messages, const std::string& origin);

}  // namespace kvbench::datasets
