#include "agent/runner/sse_parser.h"

namespace kvbench::runner {

void SseParser::Feed(absl::string_view chunk, EventCallback on_event) {
  while (!chunk.empty()) {
    const size_t newline = chunk.find('\n');
    if (newline == absl::string_view::npos) {
      line_.append(chunk.data(), chunk.size());
      break;
    }
    absl::string_view line = chunk.substr(0, newline);
    if (!line_.empty()) {
      line_.append(line.data(), line.size());
      line = line_;
    }
    chunk.remove_prefix(newline + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    EndLine(line, on_event);
    line_.clear();
  }
  // The chunk goes away after this call: a data line still held as a view is copied.
  if (data_in_view_) {
    data_.assign(data_view_.data(), data_view_.size());
    data_in_view_ = false;
  }
}

void SseParser::Feed(absl::string_view chunk, std::vector<std::string>* events) {
  Feed(chunk, [events](absl::string_view payload) { events->emplace_back(payload); });
}

void SseParser::EndLine(absl::string_view line, EventCallback on_event) {
  if (line.empty()) {  // blank line: dispatch
    if (has_data_) on_event(data_in_view_ ? data_view_ : absl::string_view(data_));
    data_.clear();
    data_in_view_ = false;
    has_data_ = false;
    return;
  }
  if (line.substr(0, 5) != "data:") return;
  absl::string_view value = line.substr(5);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  // A line assembled in line_ is cleared once handled: only a line lying in the chunk is viewed.
  const bool in_chunk = line_.empty();
  if (!has_data_ && in_chunk) {
    data_view_ = value;
    data_in_view_ = true;
  } else {
    if (data_in_view_) {
      data_.assign(data_view_.data(), data_view_.size());
      data_in_view_ = false;
    }
    if (has_data_) data_.push_back('\n');
    data_.append(value.data(), value.size());
  }
  has_data_ = true;
}

}  // namespace kvbench::runner
