#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/log/logging.h"

namespace kvbench::kvctl {

// Keeps log lines until their file is known (kvctl run's log goes to <out>/<job>/kvctl.log, and
// the job id comes from the embedded controller), then hands them to it. Thread-safe.
class HeldLogSink : public LogSink {
 public:
  void Write(LogLevel level, absl::string_view line) override {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.emplace_back(level, std::string(line));
  }
  // Writes the held lines to `sink`, oldest first, and forgets them.
  void HandTo(LogSink* sink) {
    std::vector<std::pair<LogLevel, std::string>> lines;
    {
      std::lock_guard<std::mutex> lock(mu_);
      lines.swap(lines_);
    }
    for (const auto& [level, line] : lines) sink->Write(level, line);
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<LogLevel, std::string>> lines_;  // guarded by mu_
};

}  // namespace kvbench::kvctl
