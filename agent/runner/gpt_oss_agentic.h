#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
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

// Whether the server can take --ask-mode's tool_choice "auto" (pure). vLLM refuses it with 400
// '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' unless
// the model renders through harmony (gpt-oss, model_type "gpt_oss") or the server was started
// with --enable-auto-tool-choice and a --tool-call-parser (or uses a Mistral tokenizer)
// (vllm-project/vllm:vllm/entrypoints/openai/chat_completion/serving.py@5e918640,
// render_chat_request). kv-runner cannot see the server's flags, so for a model that is not
// gpt-oss (by --model or --tokenizer, IsGptOssModel) `server_auto_tool_choice`
// (--server-auto-tool-choice) says the server has them. INVALID_ARGUMENT naming why otherwise,
// so every round is not refused one by one.
absl::Status CheckAskModeSupported(const std::string& model, const std::string& tokenizer,
                                   bool ask_mode, bool server_auto_tool_choice);

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
