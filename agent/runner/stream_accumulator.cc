#include "agent/runner/stream_accumulator.h"

#include <string_view>

#include "agent/runner/stream_event_scan.h"

namespace kvbench::runner {
namespace {

// Whether `text` holds `key` (with its quotes): found by its `tail` (the bytes after its first
// two, closing quote included: a rarer first byte than the quote's), then checked whole.
bool HoldsQuoted(std::string_view text, std::string_view key, std::string_view tail) {
  const size_t head = key.size() - tail.size();
  for (size_t at = text.find(tail); at != std::string_view::npos; at = text.find(tail, at + 1)) {
    if (at >= head && text.substr(at - head, key.size()) == key) return true;
  }
  return false;
}

// Whether a payload might carry what only a full parse can read: usage or an error. A JSON string
// cannot contain the bytes `"usage"` or `"error"` (its quotes are escaped), so a payload without
// them has neither key; a false positive only costs a parse. Searched with std::string_view's
// find (memchr on a first byte that is rare here) rather than absl::string_view's (Debian's
// Abseil compares at every offset) or memmem: this runs on every streamed token, and it was the
// costliest step of one.
bool MayCarryUsageOrError(absl::string_view payload) {
  const std::string_view text(payload.data(), payload.size());
  return HoldsQuoted(text, "\"usage\"", "sage\"") || HoldsQuoted(text, "\"error\"", "rror\"");
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
  const std::optional<StreamEventFields> event = ScanStreamEvent(payload);
  if (!event) {
    error_ = "bad_stream_event";
    return Kind::kError;
  }
  if (event->has_error || event->object_is_error) {
    const std::optional<std::string>& message =
        event->has_error ? (event->error_is_object ? event->error_message : std::nullopt)
                         : event->root_message;
    error_ = message ? "stream_error: " + *message : "stream_error";
    return Kind::kError;
  }
  if (event->prompt_tokens) prompt_tokens_ = event->prompt_tokens;
  if (event->completion_tokens) output_tokens_ = event->completion_tokens;
  if (event->cached_tokens) cached_tokens_ = event->cached_tokens;
  if (event->token) {
    saw_token_ = true;
    return Kind::kToken;
  }
  return Kind::kOther;
}

}  // namespace kvbench::runner
