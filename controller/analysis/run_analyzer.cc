#include "controller/analysis/run_analyzer.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/lifecycle/lifecycle.h"
#include "controller/regression/host_load_gate.h"
#include "controller/regression/result_metrics.h"
#include "controller/regression/version_change.h"
#include "controller/spec/scenario_expander.h"

namespace kvbench::controller {
namespace {

using regression::RegressionMetric;

struct SeriesId {
  std::string agent;
  v1::Tier tier;
  int32_t concurrency;
  bool operator<(const SeriesId& other) const {
    return std::tie(agent, tier, concurrency) <
           std::tie(other.agent, other.tier, other.concurrency);
  }
};

struct Point {
  int run;  // index in the runs
  double value;
};

std::vector<const v1::Job*> AllRuns(const RunHistory& history) {
  std::vector<const v1::Job*> runs;
  for (const v1::Job& job : history.earlier) runs.push_back(&job);
  runs.push_back(&history.run);
  return runs;
}

int IndexOfJob(const std::vector<const v1::Job*>& runs, const std::string& job_id) {
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i]->job_id() == job_id) return static_cast<int>(i);
  }
  return -1;
}

// Every series' values over the runs: succeeded scenarios only; a failed run is a gap.
std::map<SeriesId, std::map<RegressionMetric, std::vector<Point>>> Series(
    const std::vector<const v1::Job*>& runs) {
  std::map<SeriesId, std::map<RegressionMetric, std::vector<Point>>> series;
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const v1::ScenarioStatus& status : runs[r]->scenarios()) {
      if (!SucceededWithResult(status)) continue;
      // A saturated host's run is not a point of the system's history.
      if (!regression::HostSaturationOf(status).empty()) continue;
      const regression::MetricValues values = regression::MetricsOfResult(status.result());
      const SeriesId id{regression::AgentClassOf(status), status.scenario().tier(),
                        status.scenario().concurrency()};
      for (const auto& info : regression::AllRegressionMetrics()) {
        const auto& value = values[static_cast<int>(info.metric)];
        if (value) series[id][info.metric].push_back({static_cast<int>(r), *value});
      }
    }
  }
  return series;
}

bool IsBad(RegressionMetric metric, double magnitude_pct) {
  return regression::InfoOf(metric).higher_is_better ? magnitude_pct < 0 : magnitude_pct > 0;
}

std::string ScenarioIdOf(const std::string& run) {
  const std::vector<std::string> parts = absl::StrSplit(run, absl::MaxSplits('/', 1));
  return parts.size() == 2 ? parts[1] : run;
}

v1::MetricChange ToProto(const regression::MetricDiff& diff) {
  const regression::RegressionMetricInfo& info = regression::InfoOf(diff.metric);
  v1::MetricChange change;
  change.set_metric(info.key);
  if (diff.before) change.set_before(*diff.before);
  if (diff.after) change.set_after(*diff.after);
  if (diff.change) change.set_change(*diff.change);
  if (diff.low) change.set_low(*diff.low);
  if (diff.high) change.set_high(*diff.high);
  change.set_change_kind(regression::ChangeKindName(info.change_kind));
  change.set_verdict(regression::DiffVerdictName(diff.verdict));
  change.set_note(diff.note);
  if (diff.p_worse) change.set_p_worse(*diff.p_worse);
  if (diff.p_better) change.set_p_better(*diff.p_better);
  if (diff.adjusted_p_worse) change.set_adjusted_p_worse(*diff.adjusted_p_worse);
  if (diff.adjusted_p_better) change.set_adjusted_p_better(*diff.adjusted_p_better);
  return change;
}

v1::TestFamily FamilyToProto(const regression::TestFamily& family) {
  v1::TestFamily proto;
  for (RegressionMetric metric : family.metrics) proto.add_metrics(regression::InfoOf(metric).key);
  proto.set_scenarios(family.scenarios);
  proto.set_tests(family.tests);
  proto.set_alpha(family.alpha);
  proto.set_withheld(family.withheld);
  return proto;
}

// How whole runs vary, per scenario key: the metrics of the runs since the last change point (the
// segment, whether or not a baseline is pinned), from their results.
regression::SpreadByScenario Spread(const RunHistory& history,
                                    const std::vector<v1::ChangePoint>& new_points,
                                    const AnalysisSettings& settings) {
  RunHistory unpinned = history;
  unpinned.pinned_baseline.clear();
  std::vector<const v1::Job*> segment;
  for (const std::string& id : BaselineJobIds(unpinned, new_points, settings)) {
    for (const v1::Job& job : history.earlier) {
      if (job.job_id() == id) segment.push_back(&job);
    }
  }
  return regression::SpreadOfJobs(segment);
}

std::string BaselineText(const v1::RunAnalysis& analysis) {
  if (analysis.baseline_kind() == "pinned") {
    return absl::StrCat("pinned job ", analysis.baseline_jobs(0));
  }
  return absl::StrCat(analysis.baseline_jobs_size(), " run(s) since the last change point");
}

}  // namespace

std::string SeriesKey(v1::Tier tier, int32_t concurrency, const std::string& agent) {
  std::string key = absl::StrCat(spec::TierSlug(tier), "-c", concurrency);
  if (!agent.empty()) absl::StrAppend(&key, "@", agent);
  return key;
}

std::vector<v1::ChangePoint> NewChangePoints(const RunHistory& history,
                                             const AnalysisSettings& settings, absl::Time now) {
  const std::vector<const v1::Job*> runs = AllRuns(history);
  std::vector<v1::ChangePoint> found;
  for (const auto& [id, metrics] : Series(runs)) {
    for (const auto& [metric, points] : metrics) {
      std::vector<double> values;
      for (const Point& point : points) values.push_back(point.value);
      for (const regression::ChangePoint& change :
           regression::FindChangePoints(values, settings.change_points)) {
        const int run = points[static_cast<size_t>(change.index)].run;
        const std::string metric_key = regression::InfoOf(metric).key;
        const bool known = std::any_of(
            history.known_change_points.begin(), history.known_change_points.end(),
            [&](const v1::ChangePoint& old) {
              if (old.agent() != id.agent || old.tier() != id.tier ||
                  old.concurrency() != id.concurrency || old.metric() != metric_key) {
                return false;
              }
              const int old_run = IndexOfJob(runs, old.job_id());
              return old_run >= 0 && std::abs(old_run - run) <= settings.change_points.min_segment;
            });
        if (known) continue;
        v1::ChangePoint& point = found.emplace_back();
        point.set_schedule(history.schedule);
        point.set_agent(id.agent);
        point.set_tier(id.tier);
        point.set_concurrency(id.concurrency);
        point.set_metric(metric_key);
        point.set_job_id(runs[static_cast<size_t>(run)]->job_id());
        point.set_p_value(change.p_value);
        point.set_mean_before(change.mean_before);
        point.set_mean_after(change.mean_after);
        point.set_magnitude_pct(change.magnitude_pct);
        point.set_bad_direction(IsBad(metric, change.magnitude_pct));
        point.set_detected_unix_ms(absl::ToUnixMillis(now));
        point.set_detected_by_job_id(history.run.job_id());
      }
    }
  }
  return found;
}

std::vector<std::string> BaselineJobIds(const RunHistory& history,
                                        const std::vector<v1::ChangePoint>& new_points,
                                        const AnalysisSettings& settings) {
  if (!history.pinned_baseline.empty()) return {history.pinned_baseline};
  const std::vector<const v1::Job*> runs = AllRuns(history);
  int start = 0;
  for (const auto* points : {&history.known_change_points, &new_points}) {
    for (const v1::ChangePoint& point : *points)
      start = std::max(start, IndexOfJob(runs, point.job_id()));
  }
  std::vector<std::string> ids;
  for (int r = static_cast<int>(history.earlier.size()) - 1;
       r >= start && static_cast<int>(ids.size()) < settings.baseline_runs; --r) {
    const v1::Job& job = history.earlier[static_cast<size_t>(r)];
    const bool any_succeeded = std::any_of(
        job.scenarios().begin(), job.scenarios().end(),
        [](const auto& status) { return status.state() == v1::SCENARIO_STATE_SUCCEEDED; });
    if (any_succeeded) ids.push_back(job.job_id());
  }
  std::reverse(ids.begin(), ids.end());
  return ids;
}

v1::RunAnalysis AnalyzeRun(const RunHistory& history,
                           const std::vector<regression::JobRequests>& baseline,
                           const regression::JobRequests& run,
                           std::vector<v1::ChangePoint> new_points,
                           const AnalysisSettings& settings, absl::Time now) {
  v1::RunAnalysis analysis;
  analysis.set_job_id(history.run.job_id());
  analysis.set_schedule(history.schedule);
  analysis.set_analyzed_unix_ms(absl::ToUnixMillis(now));
  analysis.set_band(settings.diff.band);
  analysis.set_confidence(settings.diff.confidence);
  analysis.set_resamples(settings.diff.resamples);
  for (const regression::JobRequests& job : baseline) analysis.add_baseline_jobs(job.job.job_id());
  auto is_alert_metric = [&settings](RegressionMetric metric) {
    return std::find(settings.alert_metrics.begin(), settings.alert_metrics.end(), metric) !=
           settings.alert_metrics.end();
  };
  if (baseline.empty()) {
    analysis.set_baseline_kind("none");
    analysis.set_note("no earlier run of the schedule to compare with");
  } else {
    analysis.set_baseline_kind(history.pinned_baseline.empty() ? "segment" : "pinned");
    // What may raise an alert is one family, so the chance that any alert of the run is noise is
    // at most 1 - confidence; the other metrics are a family of their own.
    const regression::JobDiff diff =
        regression::DiffJobs(baseline, {run}, settings.diff, Spread(history, new_points, settings),
                             {settings.alert_metrics});
    for (const regression::TestFamily& family : diff.families) {
      *analysis.add_families() = FamilyToProto(family);
    }
    for (const regression::ScenarioDiff& scenario : diff.scenarios) {
      v1::ScenarioChange* change = analysis.add_scenarios();
      change->set_tier(scenario.tier);
      change->set_concurrency(scenario.concurrency);
      change->set_agent(scenario.agent);
      for (const std::string& id : scenario.before_runs) change->add_before_runs(id);
      for (const std::string& id : scenario.after_runs) change->add_after_runs(id);
      change->set_note(scenario.note);
      for (const regression::MetricDiff& metric : scenario.metrics) {
        *change->add_metrics() = ToProto(metric);
        if (metric.verdict != regression::DiffVerdict::kRegression ||
            !is_alert_metric(metric.metric)) {
          continue;
        }
        v1::RegressionAlert* alert = analysis.add_alerts();
        alert->set_kind(v1::ALERT_DIFF_REGRESSION);
        alert->set_alert_id(
            absl::StrCat(history.run.job_id(), "/diff/",
                         SeriesKey(scenario.tier, scenario.concurrency, scenario.agent), "/",
                         regression::InfoOf(metric.metric).key));
        alert->set_agent(scenario.agent);
        alert->set_tier(scenario.tier);
        alert->set_concurrency(scenario.concurrency);
        alert->set_scenario_id(ScenarioIdOf(scenario.after_runs.front()));
        const v1::MetricChange& values = change->metrics(change->metrics_size() - 1);
        alert->set_metric(values.metric());
        alert->set_before(values.before());
        alert->set_after(values.after());
        alert->set_change(values.change());
        alert->set_low(values.low());
        alert->set_high(values.high());
        alert->set_change_kind(values.change_kind());
        alert->set_confidence(settings.diff.confidence);
        if (values.has_adjusted_p_worse()) alert->set_adjusted_p_value(values.adjusted_p_worse());
        alert->set_baseline(BaselineText(analysis));
        alert->set_likely_cause(scenario.version_change);
      }
    }
    if (diff.scenarios.empty()) analysis.set_note("no scenario matches one of the baseline");
  }
  const std::vector<const v1::Job*> runs = AllRuns(history);
  for (v1::ChangePoint& point : new_points) {
    point.set_likely_cause(regression::ChangePointVersionChange(runs, point));
    const std::optional<RegressionMetric> metric =
        regression::RegressionMetricFromKey(point.metric());
    if (point.bad_direction() && metric && is_alert_metric(*metric)) {
      v1::RegressionAlert* alert = analysis.add_alerts();
      alert->set_kind(v1::ALERT_CHANGE_POINT);
      alert->set_alert_id(absl::StrCat(history.run.job_id(), "/change_point/",
                                       SeriesKey(point.tier(), point.concurrency(), point.agent()),
                                       "/", point.metric(), "/", point.job_id()));
      alert->set_agent(point.agent());
      alert->set_tier(point.tier());
      alert->set_concurrency(point.concurrency());
      alert->set_metric(point.metric());
      alert->set_before(point.mean_before());
      alert->set_after(point.mean_after());
      alert->set_change(point.magnitude_pct());
      alert->set_change_kind(regression::ChangeKindName(regression::ChangeKind::kRelativePct));
      alert->set_baseline(
          absl::StrCat("change point at ", point.job_id(), " (p = ", point.p_value(), ")"));
      alert->set_likely_cause(point.likely_cause());
    }
    *analysis.add_new_change_points() = std::move(point);
  }
  for (v1::RegressionAlert& alert : *analysis.mutable_alerts()) {
    alert.set_schedule(history.schedule);
    alert.set_job_id(history.run.job_id());
    alert.set_created_unix_ms(absl::ToUnixMillis(now));
  }
  return analysis;
}

}  // namespace kvbench::controller
