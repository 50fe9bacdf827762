#include "common/files/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace kvbench {
namespace {

absl::Status Failed(const std::string& path, absl::string_view step, absl::string_view file,
                    int error) {
  return absl::FailedPreconditionError(
      absl::StrCat("cannot write ", path, ": ", step, " ", file, ": ", std::strerror(error)));
}

// The error without the "cannot write <path>" prefix WriteFileAtomicallyWith puts on fill errors.
absl::Status WriteAll(int fd, absl::string_view content, const std::string& temp) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("write ", temp, ": ", std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status SyncFolderOf(const std::string& path) {
  std::string folder = std::filesystem::path(path).parent_path().string();
  if (folder.empty()) folder = ".";
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Failed(path, "open folder", folder, errno);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0) return Failed(path, "fsync folder", folder, error);
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFileAtomicallyWith(const std::string& path, FillTempFile fill,
                                     const AtomicWriteOptions& options) {
  const std::string temp = absl::StrCat(path, kAtomicTempSuffix);
  const int fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, options.mode);
  if (fd < 0) return Failed(path, "open", temp, errno);
  absl::Status status = fill(fd, temp);
  if (!status.ok()) {
    status =
        absl::Status(status.code(), absl::StrCat("cannot write ", path, ": ", status.message()));
  }
  if (status.ok() && options.sync_file && ::fsync(fd) != 0) {
    status = Failed(path, "fsync", temp, errno);
  }
  if (::close(fd) != 0 && status.ok()) status = Failed(path, "close", temp, errno);
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    status = Failed(path, "rename", temp, errno);
  }
  if (!status.ok()) {
    ::unlink(temp.c_str());
    return status;
  }
  return options.sync_folder ? SyncFolderOf(path) : absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view content,
                                 const AtomicWriteOptions& options) {
  return WriteFileAtomicallyWith(
      path, [&](int fd, const std::string& temp) { return WriteAll(fd, content, temp); }, options);
}

}  // namespace kvbench
