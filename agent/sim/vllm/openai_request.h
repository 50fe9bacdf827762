#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace kvbench::sim {

// An error in vLLM's (>= 0.10.1) shape: {"error":{"message","type","param":null,"code"}}.
struct ApiError {
  int status = 400;
  std::string type = "BadRequestError";
  std::string message;

  std::string ToJson() const;
  static ApiError BadRequest(std::string message);      // schema problems: type "Bad Request"
  static ApiError InvalidRequest(std::string message);  // semantic: "BadRequestError"
  static ApiError NotFound(std::string message);        // 404 "NotFoundError"
  static ApiError Internal(std::string message);        // 500 "InternalServerError"
};

enum class ApiKind { kChat, kCompletion };

// What the server knows that request parsing needs.
struct ApiContext {
  std::vector<std::string> served_names;  // never empty
  int max_model_len = 0;
  bool harmony = false;           // the model renders through harmony (gpt-oss)
  bool auto_tool_choice = false;  // --enable-auto-tool-choice (with a --tool-call-parser)
};

// A request to /v1/chat/completions or /v1/completions, validated and tokenized.
struct ParsedRequest {
  ApiKind kind = ApiKind::kChat;
  std::string model;  // the served name the response carries
  std::vector<uint32_t> prompt;
  int max_tokens = 0;  // after clamping to the context left
  bool ignore_eos = false;
  bool stream = false;
  bool include_usage = false;     // usage chunk at the end of a stream
  bool continuous_usage = false;  // usage on every chunk
};

// Parses and validates a request body as vLLM does: bad JSON or fields → 400 "Bad Request";
// a model not served → 404; a prompt of max_model_len tokens or more → 400 "BadRequestError"
// with vLLM's message; max_tokens is clamped to the context left (newest vLLM), default = all of
// it. Chat messages go through the fixed chat template (agent/sim/engine/chat_template.h).
// A chat request whose tool_choice is neither absent nor "none" needs a tool parser: without
// harmony or --enable-auto-tool-choice, "auto" is 400 '"auto" tool choice requires
// --enable-auto-tool-choice and --tool-call-parser to be set' and any other choice 400
// 'tool_choice="<choice>" requires --tool-call-parser to be set'
// (vllm-project/vllm:vllm/entrypoints/openai/chat_completion/serving.py@5e918640).
// Unknown fields are ignored, as vLLM does.
std::optional<ApiError> ParseApiRequest(ApiKind kind, absl::string_view body,
                                        const ApiContext& context, ParsedRequest* request);

}  // namespace kvbench::sim
