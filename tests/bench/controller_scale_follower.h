#pragma once

// The follower of the controller scale bench's PostgreSQL variant: a second kv-controller on the
// leader's database that waits as a standby.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/process/process_launcher.h"
#include "tests/bench/controller_scale_process.h"
#include "tests/support/temp_dir.h"

namespace kvbench::bench {

// A kv-controller child with the leader's config but its own data dir and listen port, on the
// same PostgreSQL database: it finds the lease held and waits as a standby. It logs no
// "controller started listen=" until it leads, so Start() waits for its "standby: the leader is"
// line instead.
class ScaleFollower {
 public:
  // Starts it on the database `postgres_dsn` names, after the leader leads; on failure the
  // Status carries its log.
  static absl::StatusOr<std::unique_ptr<ScaleFollower>> Start(const std::string& binary,
                                                              absl::Duration ready_timeout,
                                                              const std::string& postgres_dsn);
  // Kills it if still running.
  ~ScaleFollower();
  ScaleFollower(const ScaleFollower&) = delete;
  ScaleFollower& operator=(const ScaleFollower&) = delete;

  int pid() const { return process_->pid(); }
  absl::StatusOr<ProcessMemory> Memory() const { return ReadProcessMemory(pid()); }
  // Its log so far (stdout and stderr).
  std::string log() const { return dir_->ReadFile("log"); }
  // SIGTERM, then up to `grace` before SIGKILL. A standby waits for the lease before it installs
  // its signal handlers, so SIGTERM's default action (death by the signal) counts as stopped.
  absl::Status Stop(absl::Duration grace);

 private:
  ScaleFollower(std::unique_ptr<testing::TempDir> dir, std::unique_ptr<ProcessLauncher> launcher,
                std::unique_ptr<Process> process);

  // Dependency order: the dir outlives the process that writes into it.
  std::unique_ptr<testing::TempDir> dir_;
  std::unique_ptr<ProcessLauncher> launcher_;
  std::unique_ptr<Process> process_;
};

}  // namespace kvbench::bench
