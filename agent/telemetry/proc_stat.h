#pragma once

// CPU time from /proc/stat and /proc/<pid>/stat (proc(5)): pure parsers of the file text, and
// thin readers that take the path so tests can point them at their own files.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/telemetry/proc_readings.h"

namespace kvbench::telemetry {

// The system-wide CPU counters.
inline constexpr char kProcStatPath[] = "/proc/stat";

// The first line of `proc_stat` whose first word is "cpu" (the sum over all CPUs, not "cpu0").
// Fields after `steal` (guest, guest_nice: already counted in user and nice) are ignored; fields
// an old kernel lacks are 0, but user, nice, system and idle must be there. INVALID_ARGUMENT when
// there is no such line or a field is not a number.
absl::StatusOr<CpuTimes> ParseProcStatCpu(absl::string_view proc_stat);

// utime and stime of a /proc/<pid>/stat line "pid (comm) state ppid ...". comm may itself hold
// spaces and parentheses, so fields are counted after the LAST ')'. INVALID_ARGUMENT when the
// text has no ')' or too few fields.
absl::StatusOr<ProcessCpuTicks> ParseProcPidStat(absl::string_view pid_stat);

// "/proc/<pid>/stat".
std::string ProcPidStatPath(int pid);

// Read and parse. Errors of ReadProcFile (NOT_FOUND: no such file, e.g. the process exited), or
// of the parser, prefixed with the path.
absl::StatusOr<CpuTimes> ReadCpuTimes(const std::string& path = kProcStatPath);
absl::StatusOr<ProcessCpuTicks> ReadProcessCpuTicks(const std::string& path);

}  // namespace kvbench::telemetry
