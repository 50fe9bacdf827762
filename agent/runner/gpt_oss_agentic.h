#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/datasets/conversation.h"

namespace kvbench::runner {

// gpt-oss agentic tool-call handling (DESIGN.md "Replay semantics": --enable-agentic-tools
// --ask-mode --sanitize-harmony-tokens --agentic-max-attempts N, gpt-oss models only). The
// methodology's client that defined these flags is not public (reference/lmcache.md §1.0), so
// kv-runner defines them here:
//
// --sanitize-harmony-tokens: gpt-oss speaks the harmony format, whose control tokens
//   (<|start|>, <|channel|>, <|message|>, ...) the server's renderer treats as structure. Recorded
//   traces can carry them as leaked text; sent back verbatim they corrupt the rendered prompt or
//   make the server refuse it. They are removed from every message's text (string contents, text
//   parts, tool-call arguments) before the body is built.
// --enable-agentic-tools: the recorded assistant turns carry tool_calls, but datasets do not keep
//   the tool schemas (reference/datasets.md). A `tools` array declares every function the user's
//   recorded calls name (first appearance order, permissive schemas), the same for every round of
//   the user so the rendered prefix stays stable from round to round.
// --ask-mode: with tools declared, the model is asked and may answer with tool calls
//   (tool_choice "auto"); without it, tool_choice is "none" (the model answers in text).
// --agentic-max-attempts N: a round that fails the way harmony parsing fails (an in-stream error
//   event, or HTTP 400/500) is sent again, up to N attempts in all; its latency still counts from
//   the first attempt's scheduled time, and the record says how many attempts it took.

// The harmony control tokens removed by --sanitize-harmony-tokens.
const std::vector<std::string>& HarmonyControlTokens();

// `messages` with every harmony control token removed from their text (pure).
nlohmann::json SanitizeHarmonyTokens(nlohmann::json messages);

// The `tools` array for a virtual user's rounds: one permissive function per distinct name in
// their assistant tool_calls, in first-appearance order; empty array when there are none (pure).
nlohmann::json DeclareRecordedTools(const std::vector<const datasets::Round*>& rounds);

// True when a failed round is one --agentic-max-attempts retries: an in-stream error event
// ("stream_error: ...") or HTTP 400/500 ("http_400", "http_500").
bool IsRetryableAgenticFailure(const std::string& error);

}  // namespace kvbench::runner
