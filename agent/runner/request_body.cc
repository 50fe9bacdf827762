#include "agent/runner/request_body.h"

#include "absl/strings/str_cat.h"

namespace kvbench::runner {

std::string BuildChatBody(const std::string& model, const nlohmann::json& messages, int osl,
                          int recorded_output_tokens) {
  nlohmann::json body;
  body["model"] = model;
  body["messages"] = messages;
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};
  int max_tokens = osl > 0 ? osl : recorded_output_tokens;
  if (max_tokens > 0) body["max_tokens"] = max_tokens;
  if (osl > 0) body["ignore_eos"] = true;
  return body.dump();
}

std::string BuildTokenizeBody(const std::string& model, const nlohmann::json& messages) {
  nlohmann::json body;
  body["model"] = model;
  body["messages"] = messages;
  return body.dump();
}

nlohmann::json WarmupMessages(int index, uint64_t seed) {
  std::string text = absl::StrCat("kvbench warmup ", seed, "-", index,
                                  ": reply with one short sentence about the number ", index, ".");
  return nlohmann::json::array({{{"role", "user"}, {"content", text}}});
}

}  // namespace kvbench::runner
