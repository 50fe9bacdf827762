#include "agent/supervisor/pid_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "agent/supervisor/process_group.h"
#include "common/files/atomic_file.h"
#include "common/log/logging.h"

namespace kvbench::agent {
namespace {

constexpr mode_t kPidFileMode = 0644;
// Longest pid file we read: the pid, the start ticks and an executable path.
constexpr size_t kMaxPidFileBytes = 8192;

}  // namespace

absl::Status WritePidFile(const std::string& path, int pid) {
  std::string text = absl::StrCat(pid, "\n");
  if (const std::optional<int64_t> ticks = ProcessStartTicks(pid)) {
    absl::StrAppend(&text, *ticks, " ", ProcessExecutable(pid), "\n");
  }
  // No folder fsync: a power loss that could lose the name also kills the child it names.
  AtomicWriteOptions options;
  options.mode = kPidFileMode;
  return WriteFileAtomically(path, text, options);
}

std::optional<int> ParsePid(absl::string_view text) {
  if (absl::EndsWith(text, "\n")) text.remove_suffix(1);
  if (text.empty() || !std::all_of(text.begin(), text.end(), absl::ascii_isdigit)) {
    return std::nullopt;
  }
  int pid = 0;
  if (!absl::SimpleAtoi(text, &pid) || pid <= 1) return std::nullopt;
  return pid;
}

absl::StatusOr<PidFileRecord> ReadPidFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return absl::ErrnoToStatus(error, absl::StrCat("cannot read pid file ", path));
  }
  char buffer[kMaxPidFileBytes];
  ssize_t n;
  do {
    n = ::read(fd, buffer, sizeof(buffer));
  } while (n < 0 && errno == EINTR);
  struct stat info {};
  const bool stated = ::fstat(fd, &info) == 0;
  ::close(fd);
  const absl::string_view text(buffer, n > 0 ? static_cast<size_t>(n) : 0);
  const size_t first_end = text.find('\n');
  const std::optional<int> pid =
      n > 0 ? ParsePid(text.substr(
                  0, first_end == absl::string_view::npos ? text.size() : first_end + 1))
            : std::nullopt;
  if (!pid || !stated) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed pid file ", path, ": want \"<pid>\\n\" with a pid above 1"));
  }
  PidFileRecord record{*pid, absl::TimeFromTimespec(info.st_mtim), std::nullopt, ""};
  if (first_end != absl::string_view::npos) {
    absl::string_view second = text.substr(first_end + 1);
    if (absl::EndsWith(second, "\n")) second.remove_suffix(1);
    const size_t space = second.find(' ');
    int64_t ticks = 0;
    if (space != absl::string_view::npos && absl::SimpleAtoi(second.substr(0, space), &ticks)) {
      record.start_ticks = ticks;
      record.executable = std::string(second.substr(space + 1));
    }
  }
  return record;
}

void RemovePidFile(const std::string& path) {
  if (::unlink(path.c_str()) == 0 || errno == ENOENT) return;
  KV_LOG(ERROR) << "cannot remove pid file path=" << path << " error=" << std::strerror(errno);
}

std::vector<std::string> ListPidFiles(const std::string& dir) {
  std::vector<std::string> paths;
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return paths;
  while (const dirent* entry = ::readdir(listing)) {
    const absl::string_view name(entry->d_name);
    if (name.size() > 4 && absl::EndsWith(name, ".pid")) {
      paths.push_back(absl::StrCat(dir, "/", name));
    }
  }
  ::closedir(listing);
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace kvbench::agent
