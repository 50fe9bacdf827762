#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::agent::preflight {

// The findings of a check that looks at several things (gpu.visible_devices): one check, with
// the worst status found, every finding's detail and the remedies of those that do not pass.
class FindingList {
 public:
  // `profiles`: what a FAIL keeps off. A FAIL with no profile to keep off is a WARN (an empty
  // list would mean every scenario).
  void Add(v1::PreflightStatus status, std::string detail, std::string remedy = "",
           std::vector<std::string> profiles = {});
  bool empty() const { return findings_.empty(); }

  // `name` with the worst status (FAIL > WARN > OK > SKIP), the details joined by "; ", the
  // remedies of the non-passing findings, and a FAIL's profiles (of its FAIL findings).
  v1::PreflightCheck ToCheck(absl::string_view name, std::vector<v1::Tier> tiers = {}) const;

 private:
  struct Finding {
    v1::PreflightStatus status;
    std::string detail;
    std::string remedy;
    std::vector<std::string> profiles;
  };
  std::vector<Finding> findings_;
};

}  // namespace kvbench::agent::preflight
