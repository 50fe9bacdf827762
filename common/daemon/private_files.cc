#include "common/daemon/private_files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/log/logging.h"

namespace kvbench {
namespace {

constexpr mode_t kGroupAndOthers = S_IRWXG | S_IRWXO;

}  // namespace

void MakeNewFilesPrivate() { ::umask(kGroupAndOthers); }

absl::Status MakeFolderPrivate(const std::string& folder) {
  struct stat info {};
  if (::stat(folder.c_str(), &info) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read ", folder, ": ", std::strerror(errno)));
  }
  if ((info.st_mode & kGroupAndOthers) == 0) return absl::OkStatus();
  if (::chmod(folder.c_str(), S_IRWXU) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot make ", folder, " private (chmod 700): ", std::strerror(errno)));
  }
  KV_LOG(WARNING) << "made the folder private path=" << folder
                  << absl::StrFormat(" mode_was=%04o mode=0700", info.st_mode & 07777);
  return absl::OkStatus();
}

}  // namespace kvbench
