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

// Equal work across tiers: with max_tokens set, ignore_eos makes the engine generate
// exactly max_tokens, so every tier decodes the same amount whatever the arrival order. vLLM's
// SamplingParams.ignore_eos: "ignore the EOS token and continue generating tokens after the EOS
// token is generated" until max_tokens (vllm-project/vllm:vllm/sampling_params.py@00388f65), an
// extra parameter its OpenAI chat-completions request accepts and passes to SamplingParams.
// The chat-completions body of one replayed round (pure; serialized before timing starts):
//   {"model", "messages" (the recorded round's, harmony-sanitized when asked),
//    "stream": true, "stream_options": {"include_usage": true},
//    "max_tokens": osl > 0 ? osl : recorded_output_tokens, with "ignore_eos": true (both omitted
//    when that is 0: a round with no recorded length stops where the model stops),
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
