#include "controller/regression/host_load_gate.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/results/host_saturation.h"

namespace kvbench::regression {

std::string HostSaturationOf(const v1::ScenarioStatus& status) {
  if (!status.has_result()) return "";
  return results::HostSaturationMessage(status.result());
}

void WithholdForHostLoad(const std::vector<std::string>& saturated, ScenarioDiff* diff) {
  if (saturated.empty()) return;
  for (MetricDiff& metric : diff->metrics) {
    metric.verdict = DiffVerdict::kNotMeasured;
    metric.note = "host saturated";
  }
  const std::string why =
      absl::StrCat("not measured, the host was saturated: ", absl::StrJoin(saturated, "; "));
  diff->note = diff->note.empty() ? why : absl::StrCat(diff->note, "; ", why);
}

std::vector<JobRequests> WithoutSaturatedScenarios(const std::vector<JobRequests>& jobs) {
  std::vector<JobRequests> kept = jobs;
  for (JobRequests& job : kept) {
    auto* scenarios = job.job.mutable_scenarios();
    for (int i = scenarios->size() - 1; i >= 0; --i) {
      if (HostSaturationOf(scenarios->Get(i)).empty()) continue;
      job.rows.erase(scenarios->Get(i).scenario().scenario_id());
      scenarios->DeleteSubrange(i, 1);
    }
  }
  return kept;
}

}  // namespace kvbench::regression
