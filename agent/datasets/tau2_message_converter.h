#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::datasets {

// AGENT_INSTRUCTION of tau2-bench's LLMAgent (src/tau2/agent/llm_agent.py). The text is not
// printed in our docs; it was recovered byte for byte from the system prompt of the derived
// tests/data/datasets/tau2_airline_gpt-4.1_lmcache_format.jsonl, which the README says was rebuilt
// from that template (the tests check the rebuilt prompt equals the derived rows' prompt).
inline constexpr const char* kTau2AgentInstruction =
    "You are a customer service agent that helps the user according to the <policy> provided "
    "below.\n"
    "During each turn you can either:\n"
    "- Send a message to the user.\n"
    "- Make a tool call.\n"
    "IMPORTANT: You cannot do both at the same time!!\n"
    "If you send text content while making a tool call, the agent will raise an error.\n"
    "Text content will be sent to the user. Do not use this field for your own reasoning.\n"
    "\n"
    "Try to be helpful and always follow the policy. Always make sure you generate valid JSON "
    "only.";

// object[field] when it is a string, else `fallback` (never throws, unlike json::value).
std::string StringOr(const nlohmann::ordered_json& object, const char* field,
                     const std::string& fallback);

// The agent's system prompt: "<instructions>\n" + kTau2AgentInstruction +
// "\n</instructions>\n<policy>\n" + policy + "\n</policy>".
std::string Tau2SystemPrompt(const std::string& policy);

// Whether the agent saw `message` (tau2's is_valid_agent_history_message): assistant messages,
// user messages without tool calls, and tool results requested by the assistant. User-side tool
// calls and their results (telecom domain) belong to the user simulator's own conversation.
bool Tau2AgentSeesMessage(const nlohmann::ordered_json& message);

// Converts one tau2 message to OpenAI chat form: tool calls become
// {"id","type":"function","function":{"name","arguments": json.dumps(arguments)}}, tool results
// {"role":"tool","tool_call_id","name","content"}. `tool_names` maps earlier tool-call ids to
// their function names (filled here from assistant tool calls). `origin` names the message.
absl::StatusOr<nlohmann::json> ConvertTau2Message(const nlohmann::ordered_json& message,
                                                  std::map<std::string, std::string>& tool_names,
                                                  absl::string_view origin);

// Seconds since the epoch of a tau2 naive timestamp "YYYY-MM-DDTHH:MM:SS[.ffffff]" (treated as
// UTC: only differences are used); INVALID_ARGUMENT naming `origin` when malformed.
absl::StatusOr<double> ParseTau2Timestamp(const nlohmann::ordered_json& message,
                                          absl::string_view origin);

}  // namespace kvbench::datasets
