#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/support/sim_process.h"
#include "tests/support/temp_dir.h"

namespace kvbench::bench {

// Memory of a process from /proc/PID/status, in KiB.
struct ProcessMemory {
  int64_t rss_kib = 0;  // VmRSS
  int64_t hwm_kib = 0;  // VmHWM: the peak RSS so far
};

// A fresh kv-controller child for one benchmark level: its own data dir and config (insecure,
// loopback, port 0), started and waited for by its "controller started listen=" log line.
class ScaleController {
 public:
  // An agent silent this long is lost. The fleet sends no periodic heartbeats between phases, so
  // it is far above the longest phase (the validator's maximum is 3600 s).
  static constexpr double kHeartbeatTimeoutS = 1800;

  // Starts it, its store the SQLite file in its data dir, or with `postgres_dsn` the PostgreSQL
  // database it names (through a dsn_file of mode 0600); on failure the Status carries the tail
  // of its log.
  static absl::StatusOr<std::unique_ptr<ScaleController>> Start(
      const std::string& binary, absl::Duration ready_timeout,
      const std::string& postgres_dsn = "");

  // "127.0.0.1:PORT".
  const std::string& address() const { return address_; }
  int pid() const;
  absl::StatusOr<ProcessMemory> Memory() const;
  // User + system CPU seconds the controller has used so far.
  double CpuSeconds() const;
  // The last lines of its log.
  std::string LogTail(int lines) const;
  // SIGTERM, then up to `grace` before SIGKILL; the time it took to exit, or an error.
  absl::StatusOr<absl::Duration> Stop(absl::Duration grace);

 private:
  ScaleController(std::unique_ptr<testing::TempDir> dir, std::string data_dir,
                  std::unique_ptr<testing::SimProcess> process);

  // Dependency order: the dir outlives the process that writes into it.
  std::unique_ptr<testing::TempDir> dir_;
  std::string data_dir_;
  std::unique_ptr<testing::SimProcess> process_;
  std::string address_;
};

}  // namespace kvbench::bench
