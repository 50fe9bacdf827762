#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace kvbench::runner {

// What StreamAccumulator reads of one SSE data payload (a JSON object), and nothing else:
//   error                   present at the root (any value); its "message" when it is an object
//   object, message         at the root: object == "error" is an error event too
//   usage.{prompt_tokens, completion_tokens}, usage.prompt_tokens_details.cached_tokens
//   choices[i].text, choices[i].delta.{content, reasoning, reasoning_content, tool_calls}
// A key given twice counts as nlohmann::json::parse counts it: the last one wins.
struct StreamEventFields {
  bool has_error = false;                    // root key "error"
  bool error_is_object = false;              // ... and its value is an object
  bool object_is_error = false;              // root "object" == "error"
  std::optional<std::string> error_message;  // error.message, a string
  std::optional<std::string> root_message;   // the root's message, a string
  std::optional<int> prompt_tokens;          // integers only, as nlohmann's get<int> reads them
  std::optional<int> completion_tokens;
  std::optional<int> cached_tokens;
  bool token = false;  // a choice carries a token of any kind (non-empty text, a tool call)
};

// The fields of `payload`; nullopt when it is not JSON or not a JSON object (exactly the payloads
// nlohmann::json::parse rejects or parses to something else). Pure.
//
// The replay's hot path: the events before the first token and the usage event are scanned.
// Building an nlohmann document, or even running its SAX lexer, cost the client more per request
// than the rest of the exchange, so a payload whose strings are plain ASCII without escapes is
// scanned by a strict validating scanner here, and anything else (escapes, UTF-8, deep nesting,
// long integers, any syntax error) by nlohmann's SAX parser, which then decides.
std::optional<StreamEventFields> ScanStreamEvent(absl::string_view payload);

}  // namespace kvbench::runner
