#pragma once

#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace kvbench::runner {

// Incremental Server-Sent Events framing (the subset OpenAI-style servers use). Pure: bytes in,
// complete events' `data` payloads out, whatever the network's chunk boundaries were.
// - Lines end at LF or CRLF (a lone CR, legal in SSE, is used by no server kvbench talks to);
//   an event ends at a blank line.
// - `data:` lines of one event are joined with '\n'; one optional space after the colon is
//   dropped. Comment lines (":...") and other fields (event:, id:, retry:) are ignored.
// - An event without any data line produces nothing.
// Bytes after the last blank line stay buffered until more arrive (a stream that ends there was
// cut: see Pending()).
class SseParser {
 public:
  using EventCallback = absl::FunctionRef<void(absl::string_view payload)>;

  // Calls `on_event` with the data payload of each event completed by `chunk`, in order. The
  // payload is valid during the call only: an event that lies whole in `chunk` (the usual case)
  // is handed over without a copy, since a copy per event was a large share of the replay
  // client's cost per streamed token.
  void Feed(absl::string_view chunk, EventCallback on_event);
  // Appends the data payload of each event completed by `chunk` to `events`.
  void Feed(absl::string_view chunk, std::vector<std::string>* events);
  // True when bytes of an unfinished event are buffered.
  bool Pending() const { return !line_.empty() || has_data_; }
  // Back to a new stream's start, keeping the buffers' memory for it.
  void Reset() {
    line_.clear();
    data_.clear();
    data_in_view_ = false;
    has_data_ = false;
  }

 private:
  void EndLine(absl::string_view line, EventCallback on_event);

  std::string line_;  // the current, unterminated line
  std::string data_;  // data lines of the current event so far, unless held in data_view_
  // The current event's only data line so far, still in the chunk being fed (not copied).
  absl::string_view data_view_;
  bool data_in_view_ = false;
  bool has_data_ = false;
};

}  // namespace kvbench::runner
