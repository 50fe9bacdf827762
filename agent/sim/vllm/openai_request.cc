#include "agent/sim/vllm/openai_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "agent/sim/engine/chat_template.h"
#include "agent/sim/engine/tokenizer.h"

namespace kvbench::sim {
namespace {

using RequestJson = nlohmann::json;

ApiError Make(int status, const char* type, std::string message) {
  ApiError error;
  error.status = status;
  error.type = type;
  error.message = std::move(message);
  return error;
}

// The prompt of a completions request: a string, a list with one string, or token ids.
std::optional<ApiError> ReadCompletionPrompt(const RequestJson& body,
                                             std::vector<uint32_t>* prompt) {
  auto it = body.find("prompt");
  if (it == body.end()) return ApiError::BadRequest("prompt: Field required");
  const RequestJson& value = *it;
  if (value.is_string()) {
    *prompt = SimTokenizer::Encode(value.get_ref<const std::string&>());
    return std::nullopt;
  }
  if (value.is_array() && value.size() == 1 && value[0].is_string()) {
    *prompt = SimTokenizer::Encode(value[0].get_ref<const std::string&>());
    return std::nullopt;
  }
  if (value.is_array() && !value.empty() &&
      std::all_of(value.begin(), value.end(),
                  [](const RequestJson& t) { return t.is_number_unsigned(); })) {
    for (const RequestJson& token : value) prompt->push_back(token.get<uint32_t>());
    return std::nullopt;
  }
  return ApiError::BadRequest(
      "prompt: must be a string, a list of one string, or a list of token ids");
}

std::optional<ApiError> ReadChatPrompt(const RequestJson& body, std::vector<uint32_t>* prompt) {
  auto it = body.find("messages");
  if (it == body.end()) return ApiError::BadRequest("messages: Field required");
  if (!it->is_array() || it->empty()) {
    return ApiError::BadRequest("messages: Input should be a non-empty list");
  }
  absl::StatusOr<std::string> text = RenderChat(*it, /*add_generation_prompt=*/true);
  if (!text.ok()) return ApiError::BadRequest(std::string(text.status().message()));
  *prompt = SimTokenizer::Encode(*text);
  return std::nullopt;
}

// vLLM's check before rendering: tool_choice other than "none" needs tool parsing, which a
// harmony model does itself and any other model only with --enable-auto-tool-choice and a parser.
std::optional<ApiError> CheckToolChoice(const RequestJson& body, const ApiContext& context) {
  auto it = body.find("tool_choice");
  if (it == body.end() || it->is_null() || *it == "none") return std::nullopt;
  if (context.harmony || context.auto_tool_choice) return std::nullopt;
  if (*it == "auto") {
    return ApiError::InvalidRequest(
        "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be "
        "set");
  }
  const std::string choice = it->is_string() ? it->get<std::string>() : it->dump();
  return ApiError::InvalidRequest(
      absl::StrCat("tool_choice=\"", choice, "\" requires --tool-call-parser to be set"));
}

// Reads an optional integer field; 400 when present with another type.
std::optional<ApiError> ReadInt(const RequestJson& body, const char* field,
                                std::optional<int64_t>* out) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) {
    return ApiError::BadRequest(absl::StrCat(field, ": Input should be a valid integer"));
  }
  *out = it->get<int64_t>();
  return std::nullopt;
}

std::optional<ApiError> ReadBool(const RequestJson& body, const char* field, bool* out) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) {
    return ApiError::BadRequest(absl::StrCat(field, ": Input should be a valid boolean"));
  }
  *out = it->get<bool>();
  return std::nullopt;
}

std::optional<ApiError> ReadStreamOptions(const RequestJson& body, ParsedRequest* request) {
  auto it = body.find("stream_options");
  if (it == body.end() || it->is_null()) return std::nullopt;  // no usage chunk
  if (!it->is_object()) return ApiError::BadRequest("stream_options: Input should be an object");
  request->include_usage = true;  // StreamOptions.include_usage defaults to True inside the object
  if (auto error = ReadBool(*it, "include_usage", &request->include_usage)) return error;
  if (auto error = ReadBool(*it, "continuous_usage_stats", &request->continuous_usage)) {
    return error;
  }
  request->continuous_usage = request->continuous_usage && request->include_usage;
  return std::nullopt;
}

std::optional<ApiError> ResolveModel(const RequestJson& body, const ApiContext& context,
                                     ParsedRequest* request) {
  auto it = body.find("model");
  if (it == body.end() || it->is_null()) {
    request->model = context.served_names.front();
    return std::nullopt;
  }
  if (!it->is_string()) return ApiError::BadRequest("model: Input should be a valid string");
  const std::string& name = it->get_ref<const std::string&>();
  const auto& names = context.served_names;
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    return ApiError::NotFound(absl::StrCat("The model `", name, "` does not exist."));
  }
  request->model = name;
  return std::nullopt;
}

std::optional<ApiError> ApplyLengths(const RequestJson& body, const ApiContext& context,
                                     ParsedRequest* request) {
  std::optional<int64_t> max_tokens, max_completion_tokens, n;
  if (auto error = ReadInt(body, "max_tokens", &max_tokens)) return error;
  if (auto error = ReadInt(body, "max_completion_tokens", &max_completion_tokens)) return error;
  if (auto error = ReadInt(body, "n", &n)) return error;
  if (n.has_value() && *n != 1) {
    return ApiError::InvalidRequest("n must be 1: kvsim-vllm generates one choice per request");
  }
  if (max_completion_tokens.has_value()) max_tokens = max_completion_tokens;
  if (max_tokens.has_value() && *max_tokens < 1) {
    return ApiError::InvalidRequest(
        absl::StrCat("max_tokens must be at least 1, got ", *max_tokens, "."));
  }
  const int64_t prompt_tokens = static_cast<int64_t>(request->prompt.size());
  if (prompt_tokens >= context.max_model_len) {
    return ApiError::InvalidRequest(
        absl::StrCat("This model's maximum context length is ", context.max_model_len,
                     " tokens. However, your request has ", prompt_tokens,
                     " input tokens. Please reduce the length of the input messages."));
  }
  const int64_t room = context.max_model_len - prompt_tokens;
  request->max_tokens = static_cast<int>(std::min(max_tokens.value_or(room), room));
  return std::nullopt;
}

}  // namespace

std::string ApiError::ToJson() const {
  nlohmann::ordered_json json;
  json["error"]["message"] = message;
  json["error"]["type"] = type;
  json["error"]["param"] = nullptr;
  json["error"]["code"] = status;
  return json.dump();
}

ApiError ApiError::BadRequest(std::string message) {
  return Make(400, "Bad Request", std::move(message));
}
ApiError ApiError::InvalidRequest(std::string message) {
  return Make(400, "BadRequestError", std::move(message));
}
ApiError ApiError::NotFound(std::string message) {
  return Make(404, "NotFoundError", std::move(message));
}
ApiError ApiError::Internal(std::string message) {
  return Make(500, "InternalServerError", std::move(message));
}

std::optional<ApiError> ParseApiRequest(ApiKind kind, absl::string_view body,
                                        const ApiContext& context, ParsedRequest* request) {
  RequestJson json =
      RequestJson::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return ApiError::BadRequest("JSON decode error: the body is not JSON");
  if (!json.is_object()) return ApiError::BadRequest("the body must be a JSON object");
  request->kind = kind;
  if (auto error = ResolveModel(json, context, request)) return error;
  if (kind == ApiKind::kChat) {
    if (auto error = CheckToolChoice(json, context)) return error;
  }
  auto prompt_error = kind == ApiKind::kChat ? ReadChatPrompt(json, &request->prompt)
                                             : ReadCompletionPrompt(json, &request->prompt);
  if (prompt_error) return prompt_error;
  if (auto error = ReadBool(json, "stream", &request->stream)) return error;
  if (auto error = ReadBool(json, "ignore_eos", &request->ignore_eos)) return error;
  if (auto error = ReadStreamOptions(json, request)) return error;
  return ApplyLengths(json, context, request);
}

}  // namespace kvbench::sim
