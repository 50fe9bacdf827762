#include "agent/sim/vllm/response_formatter.h"

#include <nlohmann/json.hpp>

namespace kvbench::sim {
namespace {

using Json = nlohmann::ordered_json;

Json UsageJson(const Usage& usage) {
  Json json;
  json["prompt_tokens"] = usage.prompt_tokens;
  json["total_tokens"] = usage.prompt_tokens + usage.completion_tokens;
  json["completion_tokens"] = usage.completion_tokens;
  if (usage.cached_tokens.has_value()) {
    json["prompt_tokens_details"]["cached_tokens"] = *usage.cached_tokens;
  }
  return json;
}

std::string Event(const Json& json) { return "data: " + json.dump() + "\n\n"; }

}  // namespace

// The fields every chunk starts with, in vLLM's order.
nlohmann::ordered_json ResponseFormatter::ChunkHead() const {
  Json json;
  json["id"] = id_;
  json["object"] = kind_ == ApiKind::kChat ? "chat.completion.chunk" : "text_completion";
  json["created"] = created_;
  json["model"] = model_;
  return json;
}

ResponseFormatter::ResponseFormatter(ApiKind kind, std::string id, int64_t created,
                                     std::string model, bool continuous_usage)
    : kind_(kind),
      id_(std::move(id)),
      created_(created),
      model_(std::move(model)),
      continuous_usage_(continuous_usage) {}

const char* ResponseFormatter::FinishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop:
      return "stop";
    case FinishReason::kLength:
      return "length";
    case FinishReason::kAbort:
      return "abort";
  }
  return "stop";
}

std::string ResponseFormatter::FirstEvents(absl::string_view text, const Usage& usage) const {
  if (kind_ == ApiKind::kCompletion) return DeltaEvent(text, usage);
  Json role = ChunkHead();
  Json choice;
  choice["index"] = 0;
  choice["delta"]["role"] = "assistant";
  choice["delta"]["content"] = "";
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = nullptr;
  role["choices"] = Json::array({choice});
  if (continuous_usage_) role["usage"] = UsageJson(Usage{usage.prompt_tokens, 0, usage.cached_tokens});
  std::string events = Event(role);
  if (!text.empty()) events += DeltaEvent(text, usage);
  return events;
}

std::string ResponseFormatter::DeltaEvent(absl::string_view text, const Usage& usage) const {
  Json chunk = ChunkHead();
  Json choice;
  choice["index"] = 0;
  if (kind_ == ApiKind::kChat) {
    choice["delta"]["content"] = std::string(text);
    choice["logprobs"] = nullptr;
    choice["finish_reason"] = nullptr;
  } else {
    choice["text"] = std::string(text);
    choice["logprobs"] = nullptr;
    choice["finish_reason"] = nullptr;
    choice["stop_reason"] = nullptr;
  }
  chunk["choices"] = Json::array({choice});
  if (continuous_usage_) chunk["usage"] = UsageJson(usage);
  return Event(chunk);
}

std::string ResponseFormatter::FinishEvent(absl::string_view text, FinishReason reason,
                                           const Usage& usage) const {
  Json chunk = ChunkHead();
  Json choice;
  choice["index"] = 0;
  if (kind_ == ApiKind::kChat) {
    choice["delta"] = Json::object();
    if (!text.empty()) choice["delta"]["content"] = std::string(text);
  } else {
    choice["text"] = std::string(text);
  }
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = FinishReasonName(reason);
  choice["stop_reason"] = nullptr;
  chunk["choices"] = Json::array({choice});
  if (continuous_usage_) chunk["usage"] = UsageJson(usage);
  return Event(chunk);
}

std::string ResponseFormatter::UsageEvent(const Usage& usage) const {
  Json chunk = ChunkHead();
  chunk["choices"] = Json::array();
  chunk["usage"] = UsageJson(usage);
  return Event(chunk);
}

std::string ResponseFormatter::ErrorEvent(const ApiError& error) {
  return "data: " + error.ToJson() + "\n\n";
}

const std::string& ResponseFormatter::DoneEvent() {
  static const std::string done = "data: [DONE]\n\n";
  return done;
}

std::string ResponseFormatter::FullResponse(absl::string_view text, FinishReason reason,
                                            const Usage& usage) const {
  Json response;
  response["id"] = id_;
  response["object"] = kind_ == ApiKind::kChat ? "chat.completion" : "text_completion";
  response["created"] = created_;
  response["model"] = model_;
  Json choice;
  choice["index"] = 0;
  if (kind_ == ApiKind::kChat) {
    choice["message"]["role"] = "assistant";
    choice["message"]["content"] = std::string(text);
    choice["message"]["tool_calls"] = Json::array();
  } else {
    choice["text"] = std::string(text);
  }
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = FinishReasonName(reason);
  choice["stop_reason"] = nullptr;
  response["choices"] = Json::array({choice});
  response["usage"] = UsageJson(usage);
  if (kind_ == ApiKind::kChat) {
    response["prompt_logprobs"] = nullptr;
    response["kv_transfer_params"] = nullptr;
  }
  return response.dump();
}

}  // namespace kvbench::sim
