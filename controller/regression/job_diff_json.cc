#include "controller/regression/job_diff_json.h"

#include <optional>

#include "controller/spec/scenario_expander.h"

namespace kvbench::regression {
namespace {

nlohmann::ordered_json OrNull(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json TestFamilyJson(const TestFamily& family) {
  nlohmann::ordered_json json;
  json["method"] = "holm";
  json["alpha"] = family.alpha;
  json["metrics"] = nlohmann::ordered_json::array();
  for (RegressionMetric metric : family.metrics) json["metrics"].push_back(InfoOf(metric).key);
  json["scenarios"] = family.scenarios;
  json["tests"] = family.tests;
  json["withheld"] = family.withheld;
  return json;
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
  // One-sided p-values against the band's edges, the test's own and after Holm over its family.
  json["p_worse"] = OrNull(diff.p_worse);
  json["p_better"] = OrNull(diff.p_better);
  json["adjusted_p_worse"] = OrNull(diff.adjusted_p_worse);
  json["adjusted_p_better"] = OrNull(diff.adjusted_p_better);
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
  json["family_wise"] = nlohmann::ordered_json::array();
  for (const TestFamily& family : diff.families)
    json["family_wise"].push_back(TestFamilyJson(family));
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
