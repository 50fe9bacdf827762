#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kvbench::runner {

// The chat-completions body of one replayed round (pure; serialized before timing starts):
//   {"model", "messages" (the recorded round's), "stream": true,
//    "stream_options": {"include_usage": true},
//    "max_tokens": osl > 0 ? osl : recorded_output_tokens (omitted when that is 0),
//    "ignore_eos": true (only when osl > 0)}
std::string BuildChatBody(const std::string& model, const nlohmann::json& messages, int osl,
                          int recorded_output_tokens);

// The body of POST {base}/tokenize for one round: {"model", "messages"}.
std::string BuildTokenizeBody(const std::string& model, const nlohmann::json& messages);

// A warmup message list: one short user message whose text starts with a prefix distinct per
// `index` and `seed`, so warmups never share a prefix with each other or with the dataset.
nlohmann::json WarmupMessages(int index, uint64_t seed);

}  // namespace kvbench::runner
