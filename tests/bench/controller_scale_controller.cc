#include "tests/bench/controller_scale_controller.h"

#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/process/process_launcher.h"

namespace kvbench::bench {
namespace {

constexpr char kReadyMarker[] = "controller started listen=";
constexpr int kErrorLogLines = 30;

}  // namespace

ScaleController::ScaleController(std::unique_ptr<testing::TempDir> dir,
                                 std::unique_ptr<testing::SimProcess> process)
    : dir_(std::move(dir)), process_(std::move(process)) {
  address_ = absl::StrCat("127.0.0.1:", process_->port());
}

absl::StatusOr<std::unique_ptr<ScaleController>> ScaleController::Start(
    const std::string& binary, absl::Duration ready_timeout, const std::string& postgres_dsn) {
  auto dir = std::make_unique<testing::TempDir>();
  absl::StatusOr<std::string> config = WriteControllerFiles(*dir, postgres_dsn);
  if (!config.ok()) return config.status();
  auto process = std::make_unique<testing::SimProcess>(
      "kv-controller", std::vector<std::string>{binary, "--config", *config}, kReadyMarker);
  if (!process->Start(ready_timeout)) {
    return absl::UnavailableError(absl::StrCat("kv-controller did not start: ", process->error()));
  }
  return std::unique_ptr<ScaleController>(new ScaleController(std::move(dir), std::move(process)));
}

int ScaleController::pid() const { return process_->process()->pid(); }

absl::StatusOr<ProcessMemory> ScaleController::Memory() const { return ReadProcessMemory(pid()); }

double ScaleController::CpuSeconds() const { return ProcessCpuSeconds(pid()); }

std::string ScaleController::LogTail(int lines) const {
  return absl::StrJoin(process_->process()->LogTail(lines), "\n");
}

absl::StatusOr<absl::Duration> ScaleController::Stop(absl::Duration grace) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<ExitStatus> exit = process_->process()->Stop(grace);
  const absl::Duration took = absl::FromChrono(std::chrono::steady_clock::now() - start);
  if (!exit.ok()) return exit.status();
  if (!exit->success()) {
    return absl::InternalError(absl::StrCat("kv-controller ", exit->ToString(),
                                            " on SIGTERM; log tail:\n", LogTail(kErrorLogLines)));
  }
  return took;
}

}  // namespace kvbench::bench
