#include "agent/supervisor/process_group.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kvbench::agent {
namespace {

// In /proc/<pid>/stat, the position of `starttime` (clock ticks after boot) counted from
// `state`, the first field after the parenthesized command name.
constexpr size_t kStartTimeField = 19;

std::optional<std::string> ReadProcFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The boot time from the "btime <unix seconds>" line of /proc/stat.
std::optional<int64_t> BootTimeSeconds() {
  std::optional<std::string> text = ReadProcFile("/proc/stat");
  if (!text) return std::nullopt;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    int64_t seconds = 0;
    if (absl::ConsumePrefix(&line, "btime ") && absl::SimpleAtoi(line, &seconds)) return seconds;
  }
  return std::nullopt;
}

}  // namespace

bool ProcessGroupExists(int pgid) { return ::kill(-pgid, 0) == 0 || errno == EPERM; }

void ReapProcessGroupChildren(int pgid) {
  for (;;) {
    const pid_t reaped = ::waitpid(-pgid, nullptr, WNOHANG);
    if (reaped < 0 && errno == EINTR) continue;
    if (reaped <= 0) return;
  }
}

std::optional<int64_t> ProcessStartTicks(int pid) {
  std::optional<std::string> stat = ReadProcFile(absl::StrCat("/proc/", pid, "/stat"));
  if (!stat) return std::nullopt;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
  const size_t close_paren = stat->rfind(')');
  if (close_paren == std::string::npos) return std::nullopt;
  const std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(*stat).substr(close_paren + 1), ' ', absl::SkipWhitespace());
  int64_t ticks = 0;
  if (fields.size() <= kStartTimeField || !absl::SimpleAtoi(fields[kStartTimeField], &ticks)) {
    return std::nullopt;
  }
  return ticks;
}

std::string ProcessExecutable(int pid) {
  std::error_code error;
  std::string exe =
      std::filesystem::read_symlink(absl::StrCat("/proc/", pid, "/exe"), error).string();
  if (error) return "";
  // A binary replaced on disk since it started (an upgrade) still names the process.
  constexpr absl::string_view kDeleted = " (deleted)";
  if (absl::EndsWith(exe, kDeleted)) exe.resize(exe.size() - kDeleted.size());
  return exe;
}

std::optional<absl::Time> ProcessStartTime(int pid) {
  const std::optional<int64_t> ticks_or = ProcessStartTicks(pid);
  if (!ticks_or) return std::nullopt;
  const int64_t ticks = *ticks_or;
  const std::optional<int64_t> boot_seconds = BootTimeSeconds();
  const long ticks_per_second = ::sysconf(_SC_CLK_TCK);
  if (!boot_seconds || ticks_per_second <= 0) return std::nullopt;
  return absl::FromUnixSeconds(*boot_seconds) +
         absl::Seconds(static_cast<double>(ticks) / static_cast<double>(ticks_per_second));
}

}  // namespace kvbench::agent
