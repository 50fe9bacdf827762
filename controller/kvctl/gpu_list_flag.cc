#include "controller/kvctl/gpu_list_flag.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kvbench::kvctl {

absl::StatusOr<std::vector<int>> ParseGpuList(const std::string& text) {
  std::vector<int> gpus;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    int gpu = 0;
    if (!absl::SimpleAtoi(part, &gpu) || gpu < 0) {
      return absl::InvalidArgumentError(absl::StrCat("--gpus: \"", part, "\" is not a GPU index"));
    }
    gpus.push_back(gpu);
  }
  return gpus;
}

}  // namespace kvbench::kvctl
