#pragma once

// `kvctl plan|run|submit SPEC.json --set KEY=VALUE ...`: a variation of a spec
// without editing its JSON. KEY is a dotted path into the spec's JSON object
// ("engine_overrides.num_gpu_blocks", "sampling.period_s", "concurrency"); VALUE is JSON when it
// parses as JSON ("64", "[2, 8]", "[\"GPU\", \"NVME\"]", "true"), else a string ("NVME",
// "demo-b"). Missing objects on the path are created; the spec's own checks then judge the
// result as they judge a file.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace kvbench::spec {

// Applies each `sets` entry in order; INVALID_ARGUMENT naming the entry when it is not
// KEY=VALUE, its key is empty or has an empty part, or the path runs through a value that is not
// an object.
absl::Status ApplySpecOverrides(const std::vector<std::string>& sets, nlohmann::ordered_json* spec);

}  // namespace kvbench::spec
