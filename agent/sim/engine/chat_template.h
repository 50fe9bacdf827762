#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace kvbench::sim {

// Renders OpenAI chat messages into prompt text through one fixed template, so the prompt of
// round k+1 starts with the prompt of round k (minus the generation prompt):
//   <|start|>{role}[ name={name}][ tool_call_id={id}]\n{content}{tool calls as JSON}<|end|>\n
// and, with `add_generation_prompt`, a final "<|start|>assistant\n". `content` may be a string,
// null, or an array of {"type":"text","text":...} parts. Every message needs a string `role`;
// INVALID_ARGUMENT names the message index and field otherwise.
absl::StatusOr<std::string> RenderChat(const nlohmann::json& messages, bool add_generation_prompt);

}  // namespace kvbench::sim
