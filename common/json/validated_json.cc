#include "common/json/validated_json.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"

namespace kvbench {
namespace {

// The root of a field path: "concurrency[1]" → "concurrency", "dataset.code" → "dataset".
absl::string_view RootOf(absl::string_view field) {
  size_t end = field.find_first_of(".[");
  return end == absl::string_view::npos ? field : field.substr(0, end);
}

// What a non-regular file is, for its error.
const char* FileKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

absl::Status CheckOpenFile(const std::string& path, const struct stat& info, int64_t max_bytes) {
  if (S_ISDIR(info.st_mode))
    return absl::InvalidArgumentError(absl::StrCat(path, " is a directory"));
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a regular file (", FileKind(info.st_mode), ")"));
  }
  if (info.st_size > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is ", info.st_size, " bytes, more than the limit of ", max_bytes));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckRegularFile(const std::string& path, int64_t max_bytes) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  return CheckOpenFile(path, info, max_bytes);
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path, int64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the checks below refuse it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  auto close_fd = absl::MakeCleanup([fd] { ::close(fd); });
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  KV_RETURN_IF_ERROR(CheckOpenFile(path, info, max_bytes));
  std::string text;
  text.reserve(static_cast<size_t>(info.st_size));
  char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (static_cast<int64_t>(text.size()) > max_bytes) {  // it grew while we read
      return absl::InvalidArgumentError(
          absl::StrCat(path, " is more than the limit of ", max_bytes, " bytes"));
    }
  }
  return text;
}

FieldErrors MergeFieldErrors(const FieldErrors& conversion, const FieldErrors& semantic) {
  FieldErrors merged = conversion;
  for (const FieldError& error : semantic.errors()) {
    bool echo = false;
    for (const FieldError& cause : conversion.errors()) {
      if (!cause.field.empty() && RootOf(cause.field) == RootOf(error.field)) echo = true;
    }
    if (!echo) merged.Add(error.field, error.message);
  }
  return merged;
}

}  // namespace kvbench
