#include "agent/runner/request_body.h"

#include "absl/strings/str_cat.h"
#include "agent/runner/gpt_oss_agentic.h"

namespace kvbench::runner {
namespace {

nlohmann::json PromptBase(const BodyOptions& options, const nlohmann::json& messages,
                          const nlohmann::json& tools) {
  nlohmann::json body;
  body["model"] = options.model;
  body["messages"] = options.sanitize_harmony_tokens ? SanitizeHarmonyTokens(messages) : messages;
  if (tools.is_array() && !tools.empty()) body["tools"] = tools;
  return body;
}

}  // namespace

std::string BuildChatBody(const BodyOptions& options, const nlohmann::json& messages,
                          const nlohmann::json& tools, int recorded_output_tokens) {
  nlohmann::json body = PromptBase(options, messages, tools);
  if (body.contains("tools")) body["tool_choice"] = options.ask_mode ? "auto" : "none";
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};
  int max_tokens = options.osl > 0 ? options.osl : recorded_output_tokens;
  if (max_tokens > 0) {
    body["max_tokens"] = max_tokens;
    body["ignore_eos"] = true;
  }
  return body.dump();
}

std::string BuildTokenizeBody(const BodyOptions& options, const nlohmann::json& messages,
                              const nlohmann::json& tools) {
  return PromptBase(options, messages, tools).dump();
}

nlohmann::json WarmupMessages(int index, uint64_t seed) {
  std::string text = absl::StrCat("kvbench warmup ", seed, "-", index,
                                  ": reply with one short sentence about the number ", index, ".");
  return nlohmann::json::array({{{"role", "user"}, {"content", text}}});
}

}  // namespace kvbench::runner
