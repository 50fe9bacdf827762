#pragma once

// What a succeeded job's tier comparisons must be for kvctl to exit 0, and the
// verdicts as machine output spells them.

#include <CLI/CLI.hpp>
#include <string>

#include "absl/status/status.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// What `kvctl run`, `kvctl watch`, `kvctl submit --watch` and `kvctl results` ask of a job's
// comparisons.
enum class VerdictGate {
  // Exit 8 when a comparison is invalid: a nightly run must not read as a success then (#18).
  kNoneInvalid,
  // --require-valid: exit 8 unless every comparison is valid; a NOT_EXERCISED one (offload never
  // needed) or a job with no tier comparison fails a CI job too.
  kAllValid,
};

// Adds `--require-valid` (sets *gate to kAllValid).
void AddRequireValidFlag(CLI::App* command, VerdictGate* gate);

// OK, or FAILED_PRECONDITION with exit 8 (kExitInvalidResults) naming each comparison group that
// fails `gate`.
absl::Status InvalidComparisonsStatus(const v1::Job& job,
                                      VerdictGate gate = VerdictGate::kNoneInvalid);

// The verdict of a comparison group of the job, as job.json spells it ("VERDICT_VALID", ...);
// "" when the group has none (yet).
std::string VerdictOfGroup(const v1::Job& job, const std::string& comparison_group);

}  // namespace kvbench::kvctl
