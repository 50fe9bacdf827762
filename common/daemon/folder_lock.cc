#include "common/daemon/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace kvbench {
namespace {

// What the holder wrote ("4242 kv-agent"), as "pid 4242 (kv-agent)"; "another process" when the
// file says nothing readable.
std::string DescribeHolder(int fd) {
  char buffer[256] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof(buffer) - 1, 0);
  if (n <= 0) return "another process";
  absl::string_view text = absl::StripAsciiWhitespace(absl::string_view(buffer, n));
  const size_t space = text.find(' ');
  if (space == absl::string_view::npos) return absl::StrCat("pid ", text);
  return absl::StrCat("pid ", text.substr(0, space), " (", text.substr(space + 1), ")");
}

}  // namespace

absl::StatusOr<FolderLock> FolderLock::Acquire(const std::string& folder,
                                               const std::string& owner) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", folder, ": ", error.message()));
  }
  std::string path = absl::StrCat(folder, "/", kFileName);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int lock_error = errno;
    std::string holder = DescribeHolder(fd);
    ::close(fd);
    if (lock_error == EWOULDBLOCK) {
      return absl::FailedPreconditionError(absl::StrCat(folder, " is in use by ", holder, ": one ",
                                                        owner, " per folder (lock ", path, ")"));
    }
    return absl::InternalError(absl::StrCat("cannot lock ", path, ": ", std::strerror(lock_error)));
  }
  const std::string content = absl::StrCat(::getpid(), " ", owner, "\n");
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, content.data(), content.size(), 0) != static_cast<ssize_t>(content.size())) {
    const int write_error = errno;
    ::close(fd);
    return absl::InternalError(
        absl::StrCat("cannot write ", path, ": ", std::strerror(write_error)));
  }
  return FolderLock(std::move(path), fd);
}

FolderLock::FolderLock(FolderLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace kvbench
