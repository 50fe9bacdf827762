#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::spec {

// JSON text → effective JobSpec: parsed (unknown fields, wrong types and unknown enum values are
// errors), `sets` applied (kvctl's --set KEY=VALUE, spec_overrides.h), validated whole, defaults
// applied. On failure, one INVALID_ARGUMENT lists every problem, each naming its field, headed by
// `source` (the file name, or "job spec").
absl::StatusOr<v1::JobSpec> ParseJobSpec(absl::string_view json_text, absl::string_view source,
                                         const std::vector<std::string>& sets = {});

// Reads `path` and ParseJobSpec's it; NOT_FOUND when the file cannot be read.
absl::StatusOr<v1::JobSpec> LoadJobSpecFile(const std::string& path,
                                            const std::vector<std::string>& sets = {});

// The spec as written in `path` with `sets` applied, converted but neither validated nor
// defaulted: what kvctl submit sends (the controller fills in its own defaults).
absl::StatusOr<v1::JobSpec> LoadJobSpecFileAsWritten(const std::string& path,
                                                     const std::vector<std::string>& sets);

// A spec that arrived as a proto (SubmitJob): validated whole, defaults applied.
absl::StatusOr<v1::JobSpec> NormalizeJobSpec(v1::JobSpec spec, absl::string_view source);

}  // namespace kvbench::spec
