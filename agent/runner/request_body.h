#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace kvbench::runner {

// What shapes every replayed body (from kv-runner's flags).
struct BodyOptions {
  std::string model;
  int osl = 0;                           // 0 = the recorded output length
  bool sanitize_harmony_tokens = false;  // gpt_oss_agentic.h
  bool ask_mode = false;                 // tool_choice "auto" (else "none") when tools are declared
};

// The chat-completions body of one replayed round (pure; serialized before timing starts):
//   {"model", "messages" (the recorded round's, harmony-sanitized when asked),
//    "stream": true, "stream_options": {"include_usage": true},
//    "max_tokens": osl > 0 ? osl : recorded_output_tokens (omitted when that is 0),
//    "ignore_eos": true (only when osl > 0),
//    "tools" and "tool_choice" (only when `tools` is a non-empty array)}
std::string BuildChatBody(const BodyOptions& options, const nlohmann::json& messages,
                          const nlohmann::json& tools, int recorded_output_tokens);

// The body of POST {base}/tokenize for the same prompt: {"model", "messages"[, "tools"]} — the
// messages and tools exactly as BuildChatBody sends them, so the count is the prompt's.
std::string BuildTokenizeBody(const BodyOptions& options, const nlohmann::json& messages,
                              const nlohmann::json& tools);

// A warmup message list: one short user message whose text starts with a prefix distinct per
// `index` and `seed`, so warmups never share a prefix with each other or with the dataset.
nlohmann::json WarmupMessages(int index, uint64_t seed);

}  // namespace kvbench::runner
