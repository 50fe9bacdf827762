#include "agent/runner/record_writer.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kvbench::runner {

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Create(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open --output ", path, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<RecordWriter>(new RecordWriter(path, file));
}

RecordWriter::RecordWriter(std::string path, std::FILE* file)
    : path_(std::move(path)), file_(file), thread_([this] { WriteLoop(); }) {}

RecordWriter::~RecordWriter() { Close().IgnoreError(); }

void RecordWriter::Write(RequestRecord record) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(record));
    wake = writer_idle_;
    writer_idle_ = false;
  }
  if (wake) queued_.notify_one();
}

void RecordWriter::WriteLoop() {
  std::deque<RequestRecord> batch;
  std::string lines;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      writer_idle_ = queue_.empty();
      queued_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      writer_idle_ = false;
      if (queue_.empty()) return;  // closing, nothing left
      // Gathers the batch; only Close() wakes this wait early.
      queued_.wait_for(lock, kBatchPeriod, [&] { return closing_; });
      batch.swap(queue_);
    }
    lines.clear();
    for (const RequestRecord& record : batch) {
      lines += ToJsonLine(record);
      lines.push_back('\n');
    }
    batch.clear();
    if (std::fwrite(lines.data(), 1, lines.size(), file_) != lines.size() ||
        std::fflush(file_) != 0) {
      std::lock_guard<std::mutex> lock(mu_);
      if (status_.ok()) {
        status_ = absl::InternalError(
            absl::StrCat("write to ", path_, " failed: ", std::strerror(errno)));
      }
    }
  }
}

absl::Status RecordWriter::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  queued_.notify_one();
  if (thread_.joinable()) {
    thread_.join();
    if (std::fclose(file_) != 0) {
      std::lock_guard<std::mutex> lock(mu_);
      if (status_.ok()) status_ = absl::InternalError(absl::StrCat("closing ", path_, " failed"));
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

}  // namespace kvbench::runner
