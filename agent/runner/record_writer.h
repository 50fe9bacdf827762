#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "agent/runner/request_record.h"

namespace kvbench::runner {

// The --output JSONL: one ToJsonLine per finished request, appended and flushed under a mutex as
// each request finishes, so a crash keeps every line already written (whole lines only).
class RecordWriter {
 public:
  // Truncates or creates `path`; NOT_FOUND / PERMISSION_DENIED-style errors name it.
  static absl::StatusOr<std::unique_ptr<RecordWriter>> Create(const std::string& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // Thread-safe. A failed write is remembered and reported by status().
  void Write(const RequestRecord& record);
  absl::Status status();

 private:
  RecordWriter(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}

  std::string path_;
  std::mutex mu_;
  std::FILE* file_;       // guarded by mu_
  absl::Status status_;   // guarded by mu_
};

}  // namespace kvbench::runner
