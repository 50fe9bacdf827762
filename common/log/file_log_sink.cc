#include "common/log/file_log_sink.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kvbench {

absl::StatusOr<std::shared_ptr<FileLogSink>> FileLogSink::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open log file ", path, ": ", std::strerror(errno)));
  }
  return std::shared_ptr<FileLogSink>(new FileLogSink(file));
}

FileLogSink::~FileLogSink() { std::fclose(file_); }

void FileLogSink::Write(LogLevel, absl::string_view line) {
  std::lock_guard<std::mutex> lock(mu_);
  std::fwrite(line.data(), 1, line.size(), file_);
  if (line.empty() || line.back() != '\n') std::fputc('\n', file_);
  std::fflush(file_);
}

}  // namespace kvbench
