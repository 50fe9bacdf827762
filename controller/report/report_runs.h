#pragma once

// The scenarios of a job the report charts: those with a result, in (concurrency, tier) order,
// and the job's concurrencies and tiers.

#include <vector>

#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::report {

struct ReportRun {
  v1::Tier tier = v1::TIER_UNSPECIFIED;
  int concurrency = 0;
  const v1::ScenarioResult* result = nullptr;  // into the job; never null
};

class ReportRuns {
 public:
  // `job` must outlive this.
  explicit ReportRuns(const v1::Job& job);

  const std::vector<ReportRun>& runs() const { return runs_; }
  // The spec's concurrencies and those of the results, ascending, distinct.
  const std::vector<int>& concurrencies() const { return concurrencies_; }
  // The spec's tiers and those of the results, in enum order (GPU, CPU_RAM, NVME).
  const std::vector<v1::Tier>& tiers() const { return tiers_; }
  // The run of this tier at this concurrency, or null.
  const v1::ScenarioResult* Find(v1::Tier tier, int concurrency) const;

 private:
  std::vector<ReportRun> runs_;
  std::vector<int> concurrencies_;
  std::vector<v1::Tier> tiers_;
};

}  // namespace kvbench::report
