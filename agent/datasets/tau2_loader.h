#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "agent/datasets/conversation.h"

namespace kvbench::datasets {

// Reads a tau2-bench Results JSON: one Session per simulation (id
// "tau2__<domain>__task<task_id>__trial<trial>__<agent llm>", as in the derived JSONL), a Round
// per assistant message with non-null `usage` (an agent LLM call; the fixed greeting has none and
// stays context). A round's messages = the rebuilt system prompt + every earlier message the agent
// saw, in OpenAI form; output_tokens = usage.completion_tokens; pre_gap = timestamp of the last
// input message - timestamp of the previous LLM-generated assistant message (0 for the first).
// Simulations with `messages` null, or without any agent LLM call, are skipped and counted.
absl::StatusOr<Dataset> LoadTau2(const std::string& path);

}  // namespace kvbench::datasets
