#include "common/files/private_file.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kvbench {
namespace {

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

}  // namespace

absl::StatusOr<std::string> ReadOwnerOnlyFile(const std::string& path, absl::string_view field) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return absl::NotFoundError(absl::StrCat(field, ": cannot read ", path));
  }
  // Only a regular file is opened: a FIFO's open would block until a writer came.
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", path, " is not a regular file (", FileKind(info.st_mode), ")"));
  }
  if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %s can be read by others (mode %04o): a secret must be its owner's alone "
        "(chmod 600 %s)",
        field, path, info.st_mode & 07777, path));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) return absl::NotFoundError(absl::StrCat(field, ": cannot read ", path));
  std::string secret(absl::StripAsciiWhitespace(text.str()));
  if (secret.empty())
    return absl::InvalidArgumentError(absl::StrCat(field, ": ", path, " is empty"));
  return secret;
}

}  // namespace kvbench
