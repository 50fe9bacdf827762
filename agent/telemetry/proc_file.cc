#include "agent/telemetry/proc_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kvbench::telemetry {

absl::StatusOr<std::string> ReadProcFile(const std::string& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    const std::string message =
        absl::StrCat("cannot read ", path, ": ", error != 0 ? std::strerror(error) : "open failed");
    if (error == ENOENT || error == ESRCH) return absl::NotFoundError(message);
    return absl::UnavailableError(message);
  }
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return absl::UnavailableError(absl::StrCat("error reading ", path));
  return text;
}

}  // namespace kvbench::telemetry
