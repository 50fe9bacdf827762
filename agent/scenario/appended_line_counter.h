#pragma once

// Counts the lines of a file that another process appends to (kv-runner's requests.jsonl, for
// the replay's progress), reading only what was appended since the last call.

#include <cstdint>
#include <ios>
#include <string>
#include <utility>

namespace kvbench::agent {

class AppendedLineCounter {
 public:
  explicit AppendedLineCounter(std::string path) : path_(std::move(path)) {}

  // The lines counted so far, after reading what was appended since the last call (0 while the
  // file does not exist).
  int64_t Update();

 private:
  std::string path_;
  std::streamoff read_to_ = 0;  // bytes counted so far
  int64_t lines_ = 0;
};

}  // namespace kvbench::agent
