#include "controller/regression/job_diff_json.h"

#include <optional>

#include "controller/spec/scenario_expander.h"

namespace kvbench::regression {
namespace {

nlohmann::ordered_json OrNull(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json MetricDiffJson(const MetricDiff& diff) {
  const RegressionMetricInfo& info = InfoOf(diff.metric);
  nlohmann::ordered_json json;
  json["metric"] = info.key;
  json["before"] = OrNull(diff.before);
  json["after"] = OrNull(diff.after);
  json["change_kind"] = ChangeKindName(info.change_kind);
  json["change"] = OrNull(diff.change);
  json["interval"] = diff.low && diff.high ? nlohmann::ordered_json::array({*diff.low, *diff.high})
                                           : nlohmann::ordered_json(nullptr);
  json["higher_is_better"] = info.higher_is_better;
  json["verdict"] = DiffVerdictName(diff.verdict);
  if (!diff.note.empty()) json["note"] = diff.note;
  return json;
}

nlohmann::ordered_json JobDiffJson(const JobDiff& diff) {
  nlohmann::ordered_json json;
  json["band"] = diff.options.band;
  json["confidence"] = diff.options.confidence;
  json["resamples"] = diff.options.resamples;
  json["seed"] = diff.options.seed;
  json["resampled_unit"] = "virtual_user";
  if (!diff.caveat.empty()) json["caveat"] = diff.caveat;
  json["scenarios"] = nlohmann::ordered_json::array();
  for (const ScenarioDiff& scenario : diff.scenarios) {
    nlohmann::ordered_json entry;
    entry["tier"] = spec::TierSlug(scenario.tier);
    entry["concurrency"] = scenario.concurrency;
    entry["agent"] = scenario.agent;
    entry["before"] = scenario.before_runs;
    entry["after"] = scenario.after_runs;
    if (!scenario.note.empty()) entry["note"] = scenario.note;
    entry["metrics"] = nlohmann::ordered_json::array();
    for (const MetricDiff& metric : scenario.metrics) {
      entry["metrics"].push_back(MetricDiffJson(metric));
    }
    json["scenarios"].push_back(std::move(entry));
  }
  json["unmatched"] = diff.unmatched;
  return json;
}

}  // namespace kvbench::regression
