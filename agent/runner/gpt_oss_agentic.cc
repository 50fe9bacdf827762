#include "agent/runner/gpt_oss_agentic.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "agent/runner/runner_argv.h"

namespace kvbench::runner {
namespace {

std::string StripControlTokens(const std::string& text) {
  if (!absl::StrContains(text, "<|")) return text;  // the common case: nothing to do
  std::vector<std::pair<absl::string_view, absl::string_view>> removals;
  for (const std::string& token : HarmonyControlTokens()) removals.emplace_back(token, "");
  return absl::StrReplaceAll(text, removals);
}

void SanitizeText(nlohmann::json* value) {
  if (value->is_string()) *value = StripControlTokens(value->get<std::string>());
}

}  // namespace

absl::Status CheckAskModeSupported(const std::string& model, const std::string& tokenizer,
                                   bool ask_mode, bool server_auto_tool_choice) {
  if (!ask_mode || server_auto_tool_choice) return absl::OkStatus();
  if (IsGptOssModel(model) || IsGptOssModel(tokenizer)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--ask-mode sends tool_choice \"auto\", which vLLM accepts only for harmony models "
      "(gpt-oss) or from a server started with --enable-auto-tool-choice and "
      "--tool-call-parser; model \"",
      model,
      "\" is not a gpt-oss model: pass --server-auto-tool-choice if the server has those flags, "
      "or drop --ask-mode"));
}

const std::vector<std::string>& HarmonyControlTokens() {
  static const std::vector<std::string> tokens = {
      "<|start|>",  "<|end|>",  "<|message|>",   "<|channel|>",     "<|constrain|>",
      "<|return|>", "<|call|>", "<|endoftext|>", "<|startoftext|>", "<|endofprompt|>"};
  return tokens;
}

nlohmann::json SanitizeHarmonyTokens(nlohmann::json messages) {
  if (!messages.is_array()) return messages;
  for (nlohmann::json& message : messages) {
    if (!message.is_object()) continue;
    if (message.contains("content")) {
      nlohmann::json& content = message["content"];
      SanitizeText(&content);
      if (content.is_array()) {
        for (nlohmann::json& part : content) {
          if (part.is_object() && part.contains("text")) SanitizeText(&part["text"]);
        }
      }
    }
    if (message.contains("tool_calls") && message["tool_calls"].is_array()) {
      for (nlohmann::json& call : message["tool_calls"]) {
        if (call.is_object() && call.contains("function") && call["function"].is_object() &&
            call["function"].contains("arguments")) {
          SanitizeText(&call["function"]["arguments"]);
        }
      }
    }
  }
  return messages;
}

nlohmann::json DeclareRecordedTools(const std::vector<const datasets::Round*>& rounds) {
  nlohmann::json tools = nlohmann::json::array();
  std::set<std::string> declared;
  for (const datasets::Round* round : rounds) {
    for (const nlohmann::json& message : round->messages) {
      if (!message.is_object() || !message.contains("tool_calls") ||
          !message["tool_calls"].is_array()) {
        continue;
      }
      for (const nlohmann::json& call : message["tool_calls"]) {
        if (!call.is_object() || !call.contains("function")) continue;
        const nlohmann::json& function = call["function"];
        if (!function.is_object() || !function.contains("name") || !function["name"].is_string()) {
          continue;
        }
        std::string name = function["name"];
        if (!declared.insert(name).second) continue;
        tools.push_back({{"type", "function"},
                         {"function",
                          {{"name", name},
                           {"description", "Tool recorded in the replayed trace."},
                           {"parameters",
                            {{"type", "object"},
                             {"properties", nlohmann::json::object()},
                             {"additionalProperties", true}}}}}});
      }
    }
  }
  return tools;
}

bool IsRetryableAgenticFailure(const std::string& error) {
  return absl::StartsWith(error, "stream_error") || error == "http_400" || error == "http_500";
}

}  // namespace kvbench::runner
