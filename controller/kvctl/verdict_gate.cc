#include "controller/kvctl/verdict_gate.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status/exit_code.h"

namespace kvbench::kvctl {

void AddRequireValidFlag(CLI::App* command, VerdictGate* gate) {
  command->add_flag_function(
      "--require-valid", [gate](int64_t) { *gate = VerdictGate::kAllValid; },
      "Exit 8 unless every tier comparison is valid (not_exercised fails too): for CI jobs");
}

absl::Status InvalidComparisonsStatus(const v1::Job& job, VerdictGate gate) {
  std::vector<std::string> invalid, not_exercised;
  for (const v1::Validity& validity : job.validity()) {
    if (validity.verdict() == v1::VERDICT_INVALID) {
      invalid.push_back(validity.comparison_group());
    } else if (validity.verdict() != v1::VERDICT_VALID) {
      not_exercised.push_back(validity.comparison_group());
    }
  }
  auto are = [](const std::vector<std::string>& groups) {
    return absl::StrCat(absl::StrJoin(groups, ", "), groups.size() == 1 ? " is" : " are");
  };
  std::vector<std::string> failures;
  if (!invalid.empty()) {
    failures.push_back(
        absl::StrCat("comparison ", are(invalid), " invalid (the verdict says why)"));
  }
  if (gate == VerdictGate::kAllValid) {
    if (!not_exercised.empty()) {
      failures.push_back(absl::StrCat(
          "comparison ", are(not_exercised),
          " not exercised (the KV working set fit in GPU memory: offload was never needed)"));
    }
    if (job.validity_size() == 0) failures.push_back("it has no tier comparison to be valid");
  }
  if (failures.empty()) return absl::OkStatus();
  return WithExitCode(
      absl::FailedPreconditionError(absl::StrCat(
          "job ", job.job_id(), " ended but ", absl::StrJoin(failures, "; "),
          gate == VerdictGate::kAllValid ? " (--require-valid asks every comparison to be valid)"
                                         : "")),
      kExitInvalidResults);
}

std::string VerdictOfGroup(const v1::Job& job, const std::string& comparison_group) {
  for (const v1::Validity& validity : job.validity()) {
    if (validity.comparison_group() == comparison_group) return v1::Verdict_Name(validity.verdict());
  }
  return "";
}

}  // namespace kvbench::kvctl
