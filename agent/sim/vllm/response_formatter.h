#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/string_view.h"
#include "agent/sim/engine/engine_types.h"
#include "agent/sim/vllm/openai_request.h"

namespace kvbench::sim {

struct Usage {
  int prompt_tokens = 0;
  int completion_tokens = 0;
  // Present only with --enable-prompt-tokens-details.
  std::optional<int> cached_tokens;
};

// Builds response bodies byte-compatible with vLLM's (reference/vllm.md §1.2-1.7): compact JSON
// with vLLM's field order, SSE events as "data: <json>\n\n", "data: [DONE]\n\n" at the end.
// Chat streams: a role chunk, content chunks, a finish chunk (with the last text), then a usage
// chunk when asked. Completion streams: the same without the role chunk.
class ResponseFormatter {
 public:
  // `id` is "chatcmpl-..." or "cmpl-...", `created` unix seconds.
  ResponseFormatter(ApiKind kind, std::string id, int64_t created, std::string model,
                    bool continuous_usage);

  // The first event(s) of a stream: the chat role chunk, then the first text if any.
  std::string FirstEvents(absl::string_view text, const Usage& usage) const;
  std::string DeltaEvent(absl::string_view text, const Usage& usage) const;
  std::string FinishEvent(absl::string_view text, FinishReason reason, const Usage& usage) const;
  std::string UsageEvent(const Usage& usage) const;
  static std::string ErrorEvent(const ApiError& error);
  static const std::string& DoneEvent();

  // A whole non-streaming response.
  std::string FullResponse(absl::string_view text, FinishReason reason, const Usage& usage) const;

  static const char* FinishReasonName(FinishReason reason);

 private:
  nlohmann::ordered_json ChunkHead() const;

  const ApiKind kind_;
  const std::string id_;
  const int64_t created_;
  const std::string model_;
  const bool continuous_usage_;
};

}  // namespace kvbench::sim
