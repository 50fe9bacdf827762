#pragma once

// The leader of the controller scale bench: a fresh kv-controller child per level.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/bench/controller_scale_process.h"
#include "tests/support/sim_process.h"
#include "tests/support/temp_dir.h"

namespace kvbench::bench {

// A fresh kv-controller child for one benchmark level: its own data dir and config (insecure,
// loopback, port 0), started and waited for by its "controller started listen=" log line (which
// a controller on a PostgreSQL store logs once it leads).
class ScaleController {
 public:
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
  ScaleController(std::unique_ptr<testing::TempDir> dir,
                  std::unique_ptr<testing::SimProcess> process);

  // Dependency order: the dir outlives the process that writes into it.
  std::unique_ptr<testing::TempDir> dir_;
  std::unique_ptr<testing::SimProcess> process_;
  std::string address_;
};

}  // namespace kvbench::bench
