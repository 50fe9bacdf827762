#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace kvbench::runner {

// What one streamed completion said, built from its SSE data payloads in order (pure).
// A payload is one of:
//   "[DONE]"                       the clean end of the stream;
//   {"error": {...}} or {"object":"error",...}   an in-stream error event;
//   a chunk object: choices[0] with delta.content / delta.reasoning / delta.reasoning_content /
//     delta.tool_calls (chat) or "text" (completions); "usage" with prompt_tokens,
//     completion_tokens and prompt_tokens_details.cached_tokens.
// Anything after [DONE] or an error is ignored; a payload that is not JSON is an error. Once a
// token has been seen, payloads that cannot hold "usage" or "error" keys are not parsed (only
// their braces are checked): the client's cost per streamed token stays a substring search.
class StreamAccumulator {
 public:
  enum class Kind { kOther, kToken, kDone, kError };

  // Folds one payload in; returns its kind (kToken when it carried a token of any kind, which is
  // what the caller stamps first_token_s on).
  Kind Add(absl::string_view payload);

  bool done() const { return done_; }
  bool saw_token() const { return saw_token_; }
  // Set on an error event or an unparsable payload: a short description.
  const std::optional<std::string>& error() const { return error_; }
  std::optional<int> prompt_tokens() const { return prompt_tokens_; }
  std::optional<int> output_tokens() const { return output_tokens_; }
  std::optional<int> cached_tokens() const { return cached_tokens_; }

 private:
  bool done_ = false;
  bool saw_token_ = false;
  std::optional<std::string> error_;
  std::optional<int> prompt_tokens_;
  std::optional<int> output_tokens_;
  std::optional<int> cached_tokens_;
};

}  // namespace kvbench::runner
