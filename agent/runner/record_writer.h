#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "agent/runner/request_record.h"

namespace kvbench::runner {

// The --output JSONL: one ToJsonLine per finished request, in the order Write was called. Write
// only queues (it runs on the replay's I/O thread); a writer thread formats, appends and flushes
// each batch, so a crash keeps every line already written (whole lines only) and the disk never
// stalls the replay. The writer wakes at most once per kBatchPeriod: a wake-up and a write(2) per
// request cost the replay's host more than formatting the record (on a loaded host at 10k+
// requests/s they were the runner's largest cost after the socket I/O itself).
class RecordWriter {
 public:
  // How long the writer gathers records after the first of a batch before writing them.
  static constexpr std::chrono::milliseconds kBatchPeriod{20};

  // Truncates or creates `path`; INVALID_ARGUMENT naming it when it cannot be opened.
  static absl::StatusOr<std::unique_ptr<RecordWriter>> Create(const std::string& path);
  // Close().
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // Thread-safe, never blocks on the disk.
  void Write(RequestRecord record);
  // Writes what is queued, joins the writer thread and closes the file; idempotent. Returns the
  // first write failure, naming the file.
  absl::Status Close();

 private:
  RecordWriter(std::string path, std::FILE* file);
  void WriteLoop();

  std::string path_;
  std::FILE* file_;  // owned by the writer thread until Close

  std::mutex mu_;
  std::condition_variable queued_;
  std::deque<RequestRecord> queue_;  // guarded by mu_
  bool closing_ = false;             // guarded by mu_
  bool writer_idle_ = false;         // guarded by mu_; the writer waits for a first record
  absl::Status status_;              // guarded by mu_
  std::thread thread_;               // last: starts once the rest exists
};

}  // namespace kvbench::runner
