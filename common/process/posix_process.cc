#include "common/process/posix_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

// glibc 2.36's <sys/pidfd.h> lacks __BEGIN_DECLS, so C++ would mangle pidfd_open's name.
extern "C" {
#include <sys/pidfd.h>
}

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench {
namespace {

constexpr size_t kLogTailChunkBytes = 64 * 1024;

// This class is the POSIX side of the ProcessLauncher seam, so it reads the OS monotonic clock
// directly, as poll(2) does.
absl::Duration MonotonicNow() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return absl::DurationFromTimespec(now);
}

// poll(2) timeout for `left` (> 0), rounded up so that a wakeup is never early.
int PollTimeoutMs(absl::Duration left) {
  if (left == absl::InfiniteDuration()) return -1;
  return static_cast<int>(std::min<int64_t>(
      absl::ToInt64Milliseconds(absl::Ceil(left, absl::Milliseconds(1))), INT_MAX));
}

std::string ErrnoText(int error) { return std::strerror(error); }

// Whether /proc/<entry>/stat describes a process in group `pgid` that is not a zombie. Entries
// that vanish or cannot be parsed count as not live.
bool IsLiveMember(const char* entry, pid_t pgid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%s/stat", entry);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[512];
  const ssize_t n = ::read(fd, buffer, sizeof(buffer) - 1);
  ::close(fd);
  if (n <= 0) return false;
  buffer[n] = '\0';
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
  const char* close_paren = std::strrchr(buffer, ')');
  if (close_paren == nullptr) return false;
  char state = '?';
  int ppid = 0;
  int pgrp = 0;
  if (std::sscanf(close_paren + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) return false;
  return pgrp == pgid && state != 'Z' && state != 'X';
}

// The processes of group `pgid` that still run (are not zombies); nullopt when /proc cannot be
// read (then nothing can be said to be gone).
std::optional<std::vector<pid_t>> LiveMembers(pid_t pgid) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return std::nullopt;
  std::vector<pid_t> live;
  while (const dirent* entry = ::readdir(proc)) {
    if (!std::isdigit(static_cast<unsigned char>(entry->d_name[0]))) continue;
    if (IsLiveMember(entry->d_name, pgid)) live.push_back(std::atoi(entry->d_name));
  }
  ::closedir(proc);
  return live;
}

// Sleeps in poll(2) on pidfds of `members` until one of them exits or `left` (> 0) passes. A
// member that is gone before its pidfd opens ends the wait at once, as its exit would.
void AwaitAnyExit(const std::vector<pid_t>& members, absl::Duration left) {
  std::vector<pollfd> watches;
  for (pid_t member : members) {
    const int fd = ::pidfd_open(member, 0);
    if (fd < 0) {
      for (const pollfd& watch : watches) ::close(watch.fd);
      return;  // gone already (ESRCH): look again
    }
    watches.push_back(pollfd{fd, POLLIN, 0});
  }
  int ready;
  do {
    ready = ::poll(watches.data(), watches.size(), PollTimeoutMs(left));
  } while (ready < 0 && errno == EINTR);
  for (const pollfd& watch : watches) ::close(watch.fd);
}

// Reads exactly `size` bytes at `offset`; false on error or a file that shrank.
bool ReadAt(int fd, char* data, size_t size, off_t offset) {
  while (size > 0) {
    const ssize_t n = ::pread(fd, data, size, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
    offset += n;
  }
  return true;
}

// The last `max_lines` lines of the file at `path`, reading backwards from its end in chunks until
// enough line breaks are seen (or kLogTailMaxBytes are read). A partial first line is dropped.
std::vector<std::string> ReadLastLines(const std::string& path, size_t max_lines) {
  if (path.empty() || max_lines == 0) return {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat info {};
  off_t start = ::fstat(fd, &info) == 0 ? info.st_size : 0;
  std::vector<std::string> chunks;  // last chunk first
  size_t bytes = 0;
  size_t line_breaks = 0;
  while (start > 0 && line_breaks <= max_lines && bytes < kLogTailMaxBytes) {
    const size_t size = std::min<size_t>(kLogTailChunkBytes, static_cast<size_t>(start));
    std::string chunk(size, '\0');
    if (!ReadAt(fd, chunk.data(), size, start - static_cast<off_t>(size))) break;
    start -= static_cast<off_t>(size);
    bytes += size;
    line_breaks += static_cast<size_t>(std::count(chunk.begin(), chunk.end(), '\n'));
    chunks.push_back(std::move(chunk));
  }
  ::close(fd);
  std::string text;
  text.reserve(bytes);
  for (auto chunk = chunks.rbegin(); chunk != chunks.rend(); ++chunk) text += *chunk;
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the final line break
  if (start > 0 && !lines.empty()) lines.erase(lines.begin());   // began mid-line
  if (lines.size() > max_lines)
    lines.erase(lines.begin(), lines.end() - static_cast<ptrdiff_t>(max_lines));
  return lines;
}

}  // namespace

PosixProcess::PosixProcess(std::string name, pid_t pid, int pidfd, std::string log_path)
    : name_(std::move(name)), pid_(pid), pidfd_(pidfd), log_path_(std::move(log_path)) {
  KV_CHECK(pid_ > 0 && pidfd_ >= 0) << "name=" << name_ << " pid=" << pid_ << " pidfd=" << pidfd_;
}

PosixProcess::~PosixProcess() {
  if (!ReapLeader() || !GroupGone()) {
    KV_LOG(WARNING) << "process destroyed while its group runs, killing it name=" << name_
                    << " pgid=" << pid_;
    absl::Status status = KillAndReap();
    if (!status.ok()) KV_LOG(ERROR) << status.message();
  }
  ::close(pidfd_);
}

std::optional<ExitStatus> PosixProcess::TryWait() {
  if (!ReapLeader()) return std::nullopt;
  return exit_status_;
}

absl::StatusOr<ExitStatus> PosixProcess::Wait(absl::Duration timeout) {
  if (WaitLeaderUntil(MonotonicNow() + timeout)) return *exit_status_;
  return absl::DeadlineExceededError(absl::StrCat(
      "process ", name_, " (pid ", pid_, ") still running after ", absl::FormatDuration(timeout)));
}

absl::Status PosixProcess::Signal(int signal) {
  if (group_gone_ || PgidRecycled()) return absl::OkStatus();
  if (::kill(-pid_, signal) == 0 || errno == ESRCH) return absl::OkStatus();
  const int error = errno;
  return absl::ErrnoToStatus(error, absl::StrCat("cannot send signal ", signal, " to process ",
                                                 name_, " (pgid ", pid_, ")"));
}

absl::StatusOr<ExitStatus> PosixProcess::Stop(absl::Duration grace) {
  const absl::Duration deadline = MonotonicNow() + grace;
  KV_RETURN_IF_ERROR(Signal(SIGTERM));
  // A stopped member (SIGSTOP, a hung host being debugged) acts on SIGTERM only once continued,
  // as systemd does it; otherwise it would always use up the grace and be killed.
  Signal(SIGCONT).IgnoreError();
  if (WaitLeaderUntil(deadline) && WaitGroupGoneUntil(deadline)) return *exit_status_;
  KV_LOG(WARNING) << "process group still running after grace, killing name=" << name_
                  << " pgid=" << pid_ << " grace=" << absl::FormatDuration(grace);
  KV_RETURN_IF_ERROR(KillAndReap());
  return *exit_status_;
}

std::vector<std::string> PosixProcess::LogTail(size_t max_lines) const {
  return ReadLastLines(log_path_, max_lines);
}

bool PosixProcess::ReapLeader() {
  if (exit_status_) return true;
  int wait_status = 0;
  pid_t reaped;
  do {
    reaped = ::waitpid(pid_, &wait_status, WNOHANG);
  } while (reaped < 0 && errno == EINTR);
  if (reaped == 0) return false;
  if (reaped == pid_) {
    RecordExit(wait_status);
  } else {
    const int error = errno;
    KV_LOG(ERROR) << "process reaped elsewhere, exit status lost name=" << name_ << " pid=" << pid_
                  << " error=" << ErrnoText(error);
    exit_status_ = ExitStatus{false, -1, 0};
  }
  return true;
}

void PosixProcess::RecordExit(int wait_status) {
  ExitStatus status;
  if (WIFSIGNALED(wait_status)) {
    status.signaled = true;
    status.signal = WTERMSIG(wait_status);
  } else {
    status.code = WEXITSTATUS(wait_status);
  }
  exit_status_ = status;
}

bool PosixProcess::WaitLeaderUntil(absl::Duration deadline) {
  while (!ReapLeader()) {
    const absl::Duration left = deadline - MonotonicNow();
    if (left <= absl::ZeroDuration()) return false;
    pollfd watch{pidfd_, POLLIN, 0};
    const int ready = ::poll(&watch, 1, PollTimeoutMs(left));
    const int error = ready < 0 ? errno : 0;
    KV_CHECK(ready >= 0 || error == EINTR)
        << "poll on pidfd failed name=" << name_ << " error=" << ErrnoText(error);
  }
  return true;
}

bool PosixProcess::GroupGone() {
  if (group_gone_) return true;
  if (!exit_status_) return false;
  if (PgidRecycled()) return group_gone_ = true;
  ReapGroupChildren();
  if (::kill(-pid_, 0) != 0 && errno == ESRCH) return group_gone_ = true;
  const std::optional<std::vector<pid_t>> live = LiveMembers(pid_);
  if (!live || !live->empty()) return false;
  // Only zombies are left. Those that died since the first pass and are ours get reaped now; the
  // rest belong to someone else (init, mostly) and no longer run.
  ReapGroupChildren();
  return group_gone_ = true;
}

bool PosixProcess::WaitGroupGoneUntil(absl::Duration deadline) {
  while (!GroupGone()) {
    const absl::Duration left = deadline - MonotonicNow();
    if (left <= absl::ZeroDuration()) return false;
    // The members have no pidfd of ours yet: open one for each live member and sleep until one
    // exits (or the deadline), then look at the group again (a member may have forked).
    const std::optional<std::vector<pid_t>> live = LiveMembers(pid_);
    if (!live) return false;  // /proc unreadable: nothing can be seen to go
    AwaitAnyExit(*live, left);
  }
  return true;
}

void PosixProcess::ReapGroupChildren() {
  for (;;) {
    int wait_status = 0;
    const pid_t reaped = ::waitpid(-pid_, &wait_status, WNOHANG);
    if (reaped < 0 && errno == EINTR) continue;
    if (reaped <= 0) return;
    if (reaped == pid_) {
      RecordExit(wait_status);
    } else {
      KV_LOG(DEBUG) << "reaped process group member name=" << name_ << " pgid=" << pid_
                    << " pid=" << reaped;
    }
  }
}

bool PosixProcess::PgidRecycled() const {
  if (!exit_status_) return false;  // the unreaped leader holds its pid
  return ::kill(pid_, 0) == 0 || errno == EPERM;
}

absl::Status PosixProcess::KillAndReap() {
  const absl::Duration deadline = MonotonicNow() + kProcessKillTimeout;
  absl::Status signaled = Signal(SIGKILL);
  if (!signaled.ok()) KV_LOG(ERROR) << signaled.message();
  if (WaitLeaderUntil(deadline) && WaitGroupGoneUntil(deadline)) return absl::OkStatus();
  return absl::DeadlineExceededError(
      absl::StrCat("process group ", pid_, " of ", name_, " still has members ",
                   absl::FormatDuration(kProcessKillTimeout), " after SIGKILL"));
}

}  // namespace kvbench
