#pragma once

#include <string>
#include <vector>

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
  // Appends the data payload of each event completed by `chunk` to `events`.
  void Feed(absl::string_view chunk, std::vector<std::string>* events);
  // True when bytes of an unfinished event are buffered.
  bool Pending() const { return !line_.empty() || has_data_; }

 private:
  void EndLine(std::vector<std::string>* events);

  std::string line_;   // the current, unterminated line
  std::string data_;   // data lines of the current event so far
  bool has_data_ = false;
};

}  // namespace kvbench::runner
