#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kvbench::kvctl {

// `--gpus 0,1`'s GPU indices (`kvctl run`, `kvctl doctor`); INVALID_ARGUMENT naming a part that
// is not a non-negative integer. "" is no GPU.
absl::StatusOr<std::vector<int>> ParseGpuList(const std::string& text);

}  // namespace kvbench::kvctl
