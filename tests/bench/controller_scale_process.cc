#include "tests/bench/controller_scale_process.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kvbench::bench {

absl::StatusOr<ProcessMemory> ReadProcessMemory(int pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  if (!status) return absl::UnavailableError(absl::StrCat("no /proc/", pid, "/status"));
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

double ProcessCpuSeconds(int pid) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
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

absl::StatusOr<std::string> WriteControllerFiles(const testing::TempDir& dir,
                                                 const std::string& postgres_dsn) {
  const std::string data_dir = dir.File("data");
  if (::mkdir(data_dir.c_str(), 0755) != 0) {
    return absl::InternalError(absl::StrCat("cannot create ", data_dir));
  }
  std::string store;
  if (!postgres_dsn.empty()) {
    const std::string dsn_file = dir.WriteFile("controller.dsn", postgres_dsn);
    if (::chmod(dsn_file.c_str(), 0600) != 0) {
      return absl::InternalError(absl::StrCat("cannot chmod ", dsn_file));
    }
    store = absl::StrCat(",\"store\":{\"postgresql\":{\"dsn_file\":\"", dsn_file, "\"}}");
  }
  return dir.WriteFile("controller.json",
                       absl::StrCat("{\"listen_address\":\"127.0.0.1:0\",\"data_dir\":\"", data_dir,
                                    "\",\"insecure\":true,\"metrics_listen\":\"127.0.0.1:0\","
                                    "\"heartbeat_timeout_s\":",
                                    kScaleHeartbeatTimeoutS, store, "}"));
}

}  // namespace kvbench::bench
