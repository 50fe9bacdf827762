#include "agent/runner/stream_accumulator.h"

#include <nlohmann/json.hpp>

namespace kvbench::runner {
namespace {

using Json = nlohmann::json;

bool NonEmptyString(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() && !it->get_ref<const std::string&>().empty();
}

bool CarriesToken(const Json& chunk) {
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array()) return false;
  for (const Json& choice : *choices) {
    if (!choice.is_object()) continue;
    if (NonEmptyString(choice, "text")) return true;
    auto delta = choice.find("delta");
    if (delta == choice.end() || !delta->is_object()) continue;
    if (NonEmptyString(*delta, "content") || NonEmptyString(*delta, "reasoning") ||
        NonEmptyString(*delta, "reasoning_content")) {
      return true;
    }
    auto tool_calls = delta->find("tool_calls");
    if (tool_calls != delta->end() && tool_calls->is_array() && !tool_calls->empty()) return true;
  }
  return false;
}

std::optional<int> IntField(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int>();
}

std::string ErrorText(const Json& chunk) {
  const Json& error = chunk.contains("error") ? chunk["error"] : chunk;
  if (error.is_object() && error.contains("message") && error["message"].is_string()) {
    return "stream_error: " + error["message"].get<std::string>();
  }
  return "stream_error";
}

// Whether a payload might carry what only a full parse can read: usage or an error. A JSON string
// cannot contain the bytes `usage"` or `error"` (its quotes are escaped), so a payload without
// `"usage"` and `"error"` has neither key; a false positive only costs a parse.
bool MayCarryUsageOrError(absl::string_view payload) {
  return payload.find("\"usage\"") != absl::string_view::npos ||
         payload.find("\"error\"") != absl::string_view::npos;
}

}  // namespace

StreamAccumulator::Kind StreamAccumulator::Add(absl::string_view payload) {
  if (done_ || error_) return Kind::kOther;
  if (payload == "[DONE]") {
    done_ = true;
    return Kind::kDone;
  }
  // Fast path: once the first token is stamped, a token chunk needs no parse (a 1000-token
  // answer is ~1000 events; parsing each would cost the client more than the server spends).
  if (saw_token_ && !MayCarryUsageOrError(payload)) {
    if (payload.empty() || payload.front() != '{' || payload.back() != '}') {
      error_ = "bad_stream_event";
      return Kind::kError;
    }
    return Kind::kOther;
  }
  Json chunk = Json::parse(payload.begin(), payload.end(), nullptr, /*allow_exceptions=*/false);
  if (!chunk.is_object()) {
    error_ = "bad_stream_event";
    return Kind::kError;
  }
  if (chunk.contains("error") || chunk.value("object", "") == "error") {
    error_ = ErrorText(chunk);
    return Kind::kError;
  }
  auto usage = chunk.find("usage");
  if (usage != chunk.end() && usage->is_object()) {
    if (auto prompt = IntField(*usage, "prompt_tokens")) prompt_tokens_ = prompt;
    if (auto output = IntField(*usage, "completion_tokens")) output_tokens_ = output;
    auto details = usage->find("prompt_tokens_details");
    if (details != usage->end() && details->is_object()) {
      if (auto cached = IntField(*details, "cached_tokens")) cached_tokens_ = cached;
    }
  }
  if (CarriesToken(chunk)) {
    saw_token_ = true;
    return Kind::kToken;
  }
  return Kind::kOther;
}

}  // namespace kvbench::runner
