#include "controller/kvctl/atomic_file.h"

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace kvbench::kvctl {

absl::Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) return absl::FailedPreconditionError(absl::StrCat("cannot write ", temp));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::FailedPreconditionError(absl::StrCat("cannot rename ", temp, " to ", path));
  }
  return absl::OkStatus();
}

}  // namespace kvbench::kvctl
