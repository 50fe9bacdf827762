#include "agent/datasets/dataset_loader.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "agent/datasets/agent_trace_loader.h"
#include "agent/datasets/openai_messages_loader.h"
#include "agent/datasets/sammshen_loader.h"
#include "agent/datasets/sharegpt_loader.h"
#include "agent/datasets/tau2_loader.h"

namespace kvbench::datasets {

absl::StatusOr<Dataset> LoadDataset(const std::string& code, const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return absl::NotFoundError(absl::StrCat("dataset ", code, ": cannot read ", path));
  }
  if (code == "sammshen") return LoadSammshen(path);
  if (code == "tau2-bench-v1") return LoadTau2(path);
  if (code == "lmcache-agent-trace") return LoadAgentTrace(path);
  if (code == "openai-messages") return LoadOpenAiMessages(path);
  if (code == "sharegpt") return LoadShareGpt(path);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dataset code \"", code,
                   "\" (known: sammshen, tau2-bench-v1, lmcache-agent-trace, openai-messages, "
                   "sharegpt)"));
}

}  // namespace kvbench::datasets
