#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace kvbench {

// One owner per folder (a second kv-agent on a work dir would kill the first one's
// replicas at start; a second kv-controller on a data dir would split jobs between two stores): an
// exclusive flock(2) on `<folder>/.lock`, whose content is the owner's pid and program. The lock
// is the kernel's, so it goes with its process, kill -9 included: there is never a stale lock to
// clean up. Movable, not copyable; the destructor releases it.
class FolderLock {
 public:
  // Creates `folder` when missing, then takes the lock, writing this process's pid and
  // `owner` (e.g. "kv-agent") into the file. FAILED_PRECONDITION naming the folder and the
  // holder ("pid 4242 (kv-agent)") when another process has it; INTERNAL when the file cannot be
  // opened or written.
  static absl::StatusOr<FolderLock> Acquire(const std::string& folder, const std::string& owner);

  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&& other) noexcept;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();

  const std::string& path() const { return path_; }

  // The lock file's name inside the folder.
  static constexpr char kFileName[] = ".lock";

 private:
  FolderLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_ = -1;
};

}  // namespace kvbench
