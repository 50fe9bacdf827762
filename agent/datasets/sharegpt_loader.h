#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "agent/datasets/conversation.h"

namespace kvbench::datasets {

// Reads ShareGPT JSON: an array of {"id", "conversations": [{"from": "human"|"gpt"|"system",
// "value": str}]}; human -> user, gpt -> assistant. A Round per gpt turn with at least one message
// before it (its messages = everything before it; output_tokens 0). Origins are "file#conv/turn".
// Conversations without such a gpt turn (common in the wild) are skipped and counted; any other
// shape problem (unknown "from", non-string "value") is INVALID_ARGUMENT.
absl::StatusOr<Dataset> LoadShareGpt(const std::string& path);

}  // namespace kvbench::datasets
