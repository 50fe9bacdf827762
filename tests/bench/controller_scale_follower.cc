#include "tests/bench/controller_scale_follower.h"

#include <csignal>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/process/posix_process_launcher.h"
#include "tests/support/wait_for.h"

namespace kvbench::bench {
namespace {

constexpr char kStandbyMarker[] = "standby: the leader is ";
constexpr absl::Duration kKillGrace = absl::Seconds(5);

}  // namespace

ScaleFollower::ScaleFollower(std::unique_ptr<testing::TempDir> dir,
                             std::unique_ptr<ProcessLauncher> launcher,
                             std::unique_ptr<Process> process)
    : dir_(std::move(dir)), launcher_(std::move(launcher)), process_(std::move(process)) {}

ScaleFollower::~ScaleFollower() {
  if (process_ != nullptr) (void)process_->Stop(kKillGrace);
}

absl::StatusOr<std::unique_ptr<ScaleFollower>> ScaleFollower::Start(
    const std::string& binary, absl::Duration ready_timeout, const std::string& postgres_dsn) {
  auto dir = std::make_unique<testing::TempDir>();
  absl::StatusOr<std::string> config = WriteControllerFiles(*dir, postgres_dsn);
  if (!config.ok()) return config.status();
  auto launcher = std::make_unique<PosixProcessLauncher>();
  ProcessSpec spec;
  spec.name = "kv-controller-follower";
  spec.argv = {binary, "--config", *config};
  spec.stdout_path = dir->File("log");  // stderr too
  absl::StatusOr<std::unique_ptr<Process>> process = launcher->Launch(spec);
  if (!process.ok()) return process.status();
  std::unique_ptr<ScaleFollower> follower(
      new ScaleFollower(std::move(dir), std::move(launcher), *std::move(process)));
  bool exited = false;
  const bool standby = testing::WaitFor(
      [&] {
        if (follower->log().find(kStandbyMarker) != std::string::npos) return true;
        exited = follower->process_->TryWait().has_value();
        return exited;
      },
      ready_timeout);
  if (!standby || exited) {
    return absl::UnavailableError(
        absl::StrCat("the follower kv-controller did not wait as a standby",
                     exited ? " (it exited)" : "", "; log:\n", follower->log()));
  }
  return follower;
}

absl::Status ScaleFollower::Stop(absl::Duration grace) {
  absl::StatusOr<ExitStatus> exit = process_->Stop(grace);
  if (!exit.ok()) return exit.status();
  if (exit->success() || (exit->signaled && exit->signal == SIGTERM)) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("the follower kv-controller ", exit->ToString(), " on SIGTERM; log:\n", log()));
}

}  // namespace kvbench::bench
