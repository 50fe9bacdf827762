#include "agent/results/counted_prompts.h"

#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kvbench::agent::results {

std::string ToPromptLine(const CountedPrompt& prompt) {
  nlohmann::json keys = nlohmann::json::array();
  for (uint64_t key : prompt.chunk_keys) {
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016" PRIx64, key);
    keys.push_back(hex);
  }
  return nlohmann::json{{"user_id", prompt.user_id},
                        {"round", prompt.round},
                        {"tokens", prompt.tokens},
                        {"chunk_keys", std::move(keys)}}
      .dump();
}

absl::StatusOr<CountedPrompt> ParsePromptLine(absl::string_view line) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) return absl::InvalidArgumentError("not a JSON object");
  auto bad = [](const char* key, const char* expected) {
    return absl::InvalidArgumentError(absl::StrCat("\"", key, "\": expected ", expected));
  };
  CountedPrompt prompt;
  if (!j.contains("user_id") || !j["user_id"].is_string()) return bad("user_id", "a string");
  if (!j.contains("round") || !j["round"].is_number_integer()) return bad("round", "an integer");
  if (!j.contains("tokens") || !j["tokens"].is_number_integer()) return bad("tokens", "an integer");
  if (!j.contains("chunk_keys") || !j["chunk_keys"].is_array())
    return bad("chunk_keys", "an array");
  prompt.user_id = j["user_id"].get<std::string>();
  prompt.round = j["round"].get<int>();
  prompt.tokens = j["tokens"].get<int64_t>();
  for (const nlohmann::json& key : j["chunk_keys"]) {
    uint64_t value = 0;
    if (!key.is_string() || !absl::SimpleHexAtoi(key.get<std::string>(), &value)) {
      return bad("chunk_keys", "hex strings");
    }
    prompt.chunk_keys.push_back(value);
  }
  return prompt;
}

}  // namespace kvbench::agent::results
