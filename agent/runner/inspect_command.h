#pragma once

#include <ostream>
#include <string>

#include "absl/status/status.h"

namespace kvbench::runner {

// `kv-runner inspect`: loads the dataset and prints datasets::ComputeStats for `num_rounds`
// (sessions, rounds, virtual users = the dataset ceiling, rounds per session, messages per
// round, skips); with `json`, the stats as one JSON object on one line.
absl::Status RunInspectCommand(const std::string& dataset, const std::string& dataset_path,
                               int num_rounds, int min_chunk_rounds, bool json,
                               std::ostream& out);

}  // namespace kvbench::runner
