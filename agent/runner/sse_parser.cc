#include "agent/runner/sse_parser.h"

namespace kvbench::runner {

void SseParser::Feed(absl::string_view chunk, std::vector<std::string>* events) {
  while (!chunk.empty()) {
    size_t newline = chunk.find('\n');
    if (newline == absl::string_view::npos) {
      line_.append(chunk.data(), chunk.size());
      return;
    }
    line_.append(chunk.data(), newline);
    chunk.remove_prefix(newline + 1);
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    EndLine(events);
  }
}

void SseParser::EndLine(std::vector<std::string>* events) {
  if (line_.empty()) {  // blank line: dispatch
    if (has_data_) events->push_back(std::move(data_));
    data_.clear();
    has_data_ = false;
    return;
  }
  absl::string_view line(line_);
  if (line.substr(0, 5) == "data:") {
    absl::string_view value = line.substr(5);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (has_data_) data_.push_back('\n');
    data_.append(value.data(), value.size());
    has_data_ = true;
  }
  line_.clear();
}

}  // namespace kvbench::runner
