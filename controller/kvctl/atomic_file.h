#pragma once

#include <string>

#include "absl/status/status.h"

namespace kvbench::kvctl {

// `content` to `path` through `path`.tmp and a rename: readers never see half a file (kvctl
// report, diff --html, history --html). FAILED_PRECONDITION naming the file that failed.
absl::Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace kvbench::kvctl
