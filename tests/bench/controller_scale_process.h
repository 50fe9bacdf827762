#pragma once

// What the scale bench's kv-controller children (the leader, ScaleController, and the standby,
// ScaleFollower) share: their files (a data dir, a config, a DSN file) and what /proc tells of
// a running one (memory, CPU).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "tests/support/temp_dir.h"

namespace kvbench::bench {

// An agent silent this long is lost. The fleet sends no periodic heartbeats between phases, so
// it is far above the longest phase (the validator's maximum is 3600 s).
inline constexpr double kScaleHeartbeatTimeoutS = 1800;

// Memory of a process from /proc/PID/status, in KiB.
struct ProcessMemory {
  int64_t rss_kib = 0;  // VmRSS
  int64_t hwm_kib = 0;  // VmHWM: the peak RSS so far
};

absl::StatusOr<ProcessMemory> ReadProcessMemory(int pid);
// User + system CPU seconds the process has used so far (0 when it cannot be read).
double ProcessCpuSeconds(int pid);

// Makes `dir`/data and writes `dir`/controller.json: insecure, loopback, gRPC and metrics on port
// 0, its store the SQLite file in the data dir or, with `postgres_dsn`, the PostgreSQL database
// it names (through `dir`/controller.dsn, mode 0600). Returns the config's path.
absl::StatusOr<std::string> WriteControllerFiles(const testing::TempDir& dir,
                                                 const std::string& postgres_dsn);

}  // namespace kvbench::bench
