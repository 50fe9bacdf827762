#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace kvbench::agent {

// A supervised child's pid file: "<pid>\n<start ticks> <executable>\n", the pid being also its
// process group id, the second line what identifies that process beyond its pid (a pid file
// is only honoured for the process it was written for, never for whatever holds the pid now). Files
// of older agents have the first line only.
struct PidFileRecord {
  int pid = 0;
  absl::Time written;                  // the file's modification time
  std::optional<int64_t> start_ticks;  // /proc/<pid>/stat starttime when written
  std::string executable;              // /proc/<pid>/exe when written; "" if unknown
};

// Writes the record of the running process `pid` (its start ticks and executable read from
// /proc now) to `path` through "<path>.tmp" renamed over it, so a reader never sees a partial
// file. FAILED_PRECONDITION naming the path when the directory is not writable.
absl::Status WritePidFile(const std::string& path, int pid);

// The pid in `text`: decimal digits, optionally followed by one line break, greater than 1 (0, 1
// and negative numbers would make kill(-pid) signal our own group, every process, or init).
std::optional<int> ParsePid(absl::string_view text);

// Reads and parses `path`; INVALID_ARGUMENT naming it when malformed, NOT_FOUND when missing.
absl::StatusOr<PidFileRecord> ReadPidFile(const std::string& path);

// Removes `path`; a missing file is fine, other failures are logged.
void RemovePidFile(const std::string& path);

// The *.pid files directly in `dir`, sorted; none when `dir` cannot be read.
std::vector<std::string> ListPidFiles(const std::string& dir);

}  // namespace kvbench::agent
