#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "common/log/logging.h"

namespace kvbench {

// A LogSink that appends every line to a file (flushed per line, so a crash keeps them): for
// tools whose terminal output is for people (kvctl run) while their logs go beside the results.
class FileLogSink : public LogSink {
 public:
  // INVALID_ARGUMENT naming the path when it cannot be opened for appending.
  static absl::StatusOr<std::shared_ptr<FileLogSink>> Open(const std::string& path);
  ~FileLogSink() override;

  void Write(LogLevel level, absl::string_view line) override;

 private:
  explicit FileLogSink(std::FILE* file) : file_(file) {}

  std::mutex mu_;
  std::FILE* file_;  // guarded by mu_
};

}  // namespace kvbench
