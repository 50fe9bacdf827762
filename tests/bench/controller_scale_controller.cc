#include "tests/bench/controller_scale_controller.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/process/process_launcher.h"

namespace kvbench::bench {
namespace {

constexpr char kReadyMarker[] = "controller started listen=";
constexpr int kErrorLogLines = 30;

std::string ConfigJson(const std::string& data_dir, const std::string& dsn_file) {
  const std::string store =
      dsn_file.empty()
          ? ""
          : absl::StrCat(",\"store\":{\"postgresql\":{\"dsn_file\":\"", dsn_file, "\"}}");
  return absl::StrCat("{\"listen_address\":\"127.0.0.1:0\",\"data_dir\":\"", data_dir,
                      "\",\"insecure\":true,\"metrics_listen\":\"127.0.0.1:0\","
                      "\"heartbeat_timeout_s\":",
                      ScaleController::kHeartbeatTimeoutS, store, "}");
}

}  // namespace

ScaleController::ScaleController(std::unique_ptr<testing::TempDir> dir, std::string data_dir,
                                 std::unique_ptr<testing::SimProcess> process)
    : dir_(std::move(dir)), data_dir_(std::move(data_dir)), process_(std::move(process)) {
  address_ = absl::StrCat("127.0.0.1:", process_->port());
}

absl::StatusOr<std::unique_ptr<ScaleController>> ScaleController::Start(
    const std::string& binary, absl::Duration ready_timeout, const std::string& postgres_dsn) {
  auto dir = std::make_unique<testing::TempDir>();
  const std::string data_dir = dir->File("data");
  if (::mkdir(data_dir.c_str(), 0755) != 0) {
    return absl::InternalError(absl::StrCat("cannot create ", data_dir));
  }
  std::string dsn_file;
  if (!postgres_dsn.empty()) {
    dsn_file = dir->WriteFile("controller.dsn", postgres_dsn);
    if (::chmod(dsn_file.c_str(), 0600) != 0) {
      return absl::InternalError(absl::StrCat("cannot chmod ", dsn_file));
    }
  }
  const std::string config = dir->WriteFile("controller.json", ConfigJson(data_dir, dsn_file));
  auto process = std::make_unique<testing::SimProcess>(
      "kv-controller", std::vector<std::string>{binary, "--config", config}, kReadyMarker);
  if (!process->Start(ready_timeout)) {
    return absl::UnavailableError(absl::StrCat("kv-controller did not start: ", process->error()));
  }
  return std::unique_ptr<ScaleController>(
      new ScaleController(std::move(dir), data_dir, std::move(process)));
}

int ScaleController::pid() const { return process_->process()->pid(); }

absl::StatusOr<ProcessMemory> ScaleController::Memory() const {
  std::ifstream status(absl::StrCat("/proc/", pid(), "/status"));
  if (!status) return absl::UnavailableError(absl::StrCat("no /proc/", pid(), "/status"));
  ProcessMemory memory;
  for (std::string line; std::getline(status, line);) {
    std::istringstream fields(line);
    std::string key;
    int64_t kib = 0;
    fields >> key >> kib;
    if (key == "VmRSS:") memory.rss_kib = kib;
    if (key == "VmHWM:") memory.hwm_kib = kib;
  }
  return memory;
}

double ScaleController::CpuSeconds() const {
  std::ifstream stat(absl::StrCat("/proc/", pid(), "/stat"));
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after "(comm)": state is field 3, utime 14 and stime 15.
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::vector<std::string> values;
  for (std::string value; fields >> value;) values.push_back(value);
  if (values.size() < 13) return 0;
  const double ticks = std::stod(values[11]) + std::stod(values[12]);
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

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
