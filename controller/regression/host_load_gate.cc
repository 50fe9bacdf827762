#include "controller/regression/host_load_gate.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/results/host_saturation.h"

namespace kvbench::regression {

std::string HostSaturationOf(const v1::ScenarioStatus& status) {
  if (!status.has_result()) return "";
  return results::HostSaturationMessage(status.result());
}

bool WithholdForHostLoad(const std::vector<std::string>& left_out,
                         const std::vector<std::string>& only, ScenarioDiff* diff) {
  std::vector<std::string> notes;
  if (!diff->note.empty()) notes.push_back(diff->note);
  if (!left_out.empty()) {
    notes.push_back(
        absl::StrCat("left out, the host was saturated: ", absl::StrJoin(left_out, "; ")));
  }
  if (!only.empty()) {
    notes.push_back(
        absl::StrCat("not measured, the host was saturated: ", absl::StrJoin(only, "; ")));
    for (MetricDiff& metric : diff->metrics) {
      metric.verdict = DiffVerdict::kNotMeasured;
      metric.note = "host saturated";
    }
  }
  diff->note = absl::StrJoin(notes, "; ");
  return !only.empty();
}

}  // namespace kvbench::regression
