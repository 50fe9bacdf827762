#include "controller/regression/job_diff.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/lifecycle/lifecycle.h"
#include "controller/regression/diff_text.h"
#include "controller/regression/host_load_gate.h"
#include "controller/regression/result_metrics.h"
#include "controller/regression/version_change.h"
#include "controller/spec/scenario_expander.h"

namespace kvbench::regression {
namespace {

using Key = std::tuple<int32_t, int, std::string>;  // concurrency, tier, agent class

struct Side {
  std::vector<std::string> runs;  // "<job>/<scenario>"
  std::vector<RunSample> samples;
  // Its runs whose host was saturated, kept apart from the above (they measured the host, not
  // the system: host_load_gate.h), and why ("<job>/<HostSaturationMessage>").
  std::vector<std::string> saturated_runs;
  std::vector<RunSample> saturated_samples;
  std::vector<std::string> saturation;
  ReleaseSet releases;  // what its runs ran against
};

// Each side's succeeded scenarios by key, with their rows grouped by user.
std::map<Key, Side> ByKey(const std::vector<JobRequests>& jobs) {
  std::map<Key, Side> sides;
  for (const JobRequests& job : jobs) {
    for (const v1::ScenarioStatus& status : job.job.scenarios()) {
      if (!SucceededWithResult(status)) continue;
      const std::string& id = status.scenario().scenario_id();
      const auto rows = job.rows.find(id);
      if (rows == job.rows.end()) continue;
      const double scale =
          status.result().has_sim_time_scale() && status.result().sim_time_scale() > 0
              ? status.result().sim_time_scale()
              : 1.0;
      Side& side = sides[Key{status.scenario().concurrency(), status.scenario().tier(),
                             AgentClassOf(status)}];
      AddReleases(status.result(), &side.releases);
      std::string label = absl::StrCat(job.job.job_id(), "/", id);
      RunSample sample = GroupByUser(label, rows->second, scale);
      if (std::string saturated = HostSaturationOf(status); !saturated.empty()) {
        side.saturation.push_back(absl::StrCat(job.job.job_id(), "/", saturated));
        side.saturated_samples.push_back(std::move(sample));
        side.saturated_runs.push_back(std::move(label));
        continue;
      }
      side.samples.push_back(std::move(sample));
      side.runs.push_back(std::move(label));
    }
  }
  return sides;
}

std::string KeyText(const Key& key) {
  return ScenarioKeyText(static_cast<v1::Tier>(std::get<1>(key)), std::get<0>(key),
                         std::get<2>(key));
}

// The runs a side pools, those whose host kept up; only when it has none, its saturated
// runs (shown, not judged: WithholdForHostLoad).
Side Pooled(const Side& side) {
  if (!side.samples.empty()) return side;
  Side shown = side;
  shown.samples = side.saturated_samples;
  shown.runs = side.saturated_runs;
  return shown;
}

// WithholdForHostLoad with the saturated runs of each side: left out of a side that pooled
// others, or its only runs.
bool SayHostLoad(const Side& before, const Side& after, ScenarioDiff* diff) {
  std::vector<std::string> left_out;
  std::vector<std::string> only;
  for (const Side* side : {&before, &after}) {
    std::vector<std::string>& into = side->samples.empty() ? only : left_out;
    into.insert(into.end(), side->saturation.begin(), side->saturation.end());
  }
  return WithholdForHostLoad(left_out, only, diff);
}

ScenarioDiff Diff(const Key& key, const Side& all_before, const Side& all_after,
                  const DiffOptions& options, const SpreadByScenario& spreads, JobDiff* result) {
  const Side before = Pooled(all_before);
  const Side after = Pooled(all_after);
  ScenarioDiff diff;
  diff.concurrency = std::get<0>(key);
  diff.tier = static_cast<v1::Tier>(std::get<1>(key));
  diff.agent = std::get<2>(key);
  diff.before_runs = before.runs;
  diff.after_runs = after.runs;
  const auto spread = spreads.find(KeyText(key));
  const RunSpread none;
  const RunSpread& runs = spread == spreads.end() ? none : spread->second;
  diff.metrics =
      BootstrapDiff(before.samples, after.samples, options, StableHash(KeyText(key)), runs);
  diff.version_change = VersionChangeText(all_before.releases, all_after.releases);
  if (SayHostLoad(all_before, all_after, &diff)) return diff;  // a saturated host: not measured
  if (static_cast<int>(runs.size()) >= kMinRunsForVerdict) return diff;
  for (MetricDiff& metric : diff.metrics) {
    if (metric.verdict != DiffVerdict::kRegression && metric.verdict != DiffVerdict::kImprovement) {
      continue;
    }
    metric.note =
        absl::StrCat("would be ", DiffVerdictName(metric.verdict), ", but only ", runs.size(),
                     " run(s) show how whole runs vary (", kMinRunsForVerdict, " needed)");
    metric.verdict = DiffVerdict::kInconclusive;
    result->caveat = absl::StrCat(
        "verdicts withheld: the intervals cover how the virtual users varied, not what moves a "
        "whole run (at high concurrency easily 20% of a TTFT p95); give the baseline ",
        kMinRunsForVerdict, " runs or more");
  }
  return diff;
}

// Two sides to diff: the after side's key, and a note when they matched across agents.
struct Match {
  Key key;
  Side before;
  Side after;
  std::string note;
};

// The scenarios of both sides paired on (tier, concurrency, agent class), then left over ones on
// (tier, concurrency) when that leaves no choice (a job not fanned out runs wherever an agent was
// free); what is left is `unmatched`.
std::vector<Match> MatchSides(std::map<Key, Side> before_sides, std::map<Key, Side> after_sides,
                              std::vector<std::string>* unmatched) {
  std::vector<Match> matches;
  for (auto it = before_sides.begin(); it != before_sides.end();) {
    const auto match = after_sides.find(it->first);
    if (match == after_sides.end()) {
      ++it;
      continue;
    }
    matches.push_back({it->first, std::move(it->second), std::move(match->second), ""});
    after_sides.erase(match);
    it = before_sides.erase(it);
  }
  auto same_cell = [](const Key& a, const Key& b) {
    return std::get<0>(a) == std::get<0>(b) && std::get<1>(a) == std::get<1>(b);
  };
  auto count_cell = [&same_cell](const std::map<Key, Side>& sides, const Key& key) {
    int count = 0;
    for (const auto& [other, side] : sides) count += same_cell(key, other) ? 1 : 0;
    return count;
  };
  for (auto it = before_sides.begin(); it != before_sides.end();) {
    auto match = after_sides.end();
    for (auto candidate = after_sides.begin(); candidate != after_sides.end(); ++candidate) {
      if (same_cell(it->first, candidate->first)) match = candidate;
    }
    if (match == after_sides.end() || count_cell(before_sides, it->first) != 1 ||
        count_cell(after_sides, match->first) != 1) {
      ++it;
      continue;
    }
    matches.push_back({match->first, std::move(it->second), std::move(match->second),
                       absl::StrCat("ran on ", std::get<2>(it->first), " before, ",
                                    std::get<2>(match->first), " after")});
    after_sides.erase(match);
    it = before_sides.erase(it);
  }
  for (const auto& [key, side] : before_sides) unmatched->push_back("before: " + KeyText(key));
  for (const auto& [key, side] : after_sides) unmatched->push_back("after: " + KeyText(key));
  return matches;
}

// The families as given, each metric in the first that names it, and one more of the metrics none
// names (the only one when none is given).
MetricFamilies CompleteFamilies(const MetricFamilies& families) {
  MetricFamilies complete;
  std::vector<bool> taken(kRegressionMetricCount, false);
  for (const std::vector<RegressionMetric>& family : families) {
    std::vector<RegressionMetric> metrics;
    for (RegressionMetric metric : family) {
      if (taken[static_cast<size_t>(metric)]) continue;
      taken[static_cast<size_t>(metric)] = true;
      metrics.push_back(metric);
    }
    if (!metrics.empty()) complete.push_back(std::move(metrics));
  }
  std::vector<RegressionMetric> rest;
  for (const RegressionMetricInfo& info : AllRegressionMetrics()) {
    if (!taken[static_cast<size_t>(info.metric)]) rest.push_back(info.metric);
  }
  if (!rest.empty()) complete.push_back(std::move(rest));
  return complete;
}

}  // namespace

std::string AgentClassOf(const v1::ScenarioStatus& status) {
  return status.scenario().agent_id().empty() ? status.agent_id() : status.scenario().agent_id();
}

SpreadByScenario SpreadOfJobs(const std::vector<const v1::Job*>& jobs) {
  SpreadByScenario spreads;
  for (const v1::Job* job : jobs) {
    for (const v1::ScenarioStatus& status : job->scenarios()) {
      if (!SucceededWithResult(status)) continue;
      if (!HostSaturationOf(status).empty()) continue;  // a saturated host: not the system
      spreads[ScenarioKeyText(status.scenario().tier(), status.scenario().concurrency(),
                              AgentClassOf(status))]
          .push_back(MetricsOfResult(status.result()));
    }
  }
  return spreads;
}

std::string ScenarioKeyText(v1::Tier tier, int32_t concurrency, const std::string& agent) {
  std::string text = absl::StrCat(spec::TierSlug(tier), " c", concurrency);
  if (!agent.empty()) absl::StrAppend(&text, " @", agent);
  return text;
}

JobDiff DiffJobs(const std::vector<JobRequests>& before, const std::vector<JobRequests>& after,
                 const DiffOptions& options, const SpreadByScenario& spreads,
                 const MetricFamilies& families) {
  JobDiff result;
  result.options = options;
  std::vector<Match> matches = MatchSides(ByKey(before), ByKey(after), &result.unmatched);
  const MetricFamilies complete = CompleteFamilies(families);
  size_t largest = 0;
  for (const std::vector<RegressionMetric>& family : complete) {
    largest = std::max(largest, family.size() * matches.size());
  }
  result.options.resamples = ResamplesForFamily(static_cast<int>(largest), options);
  for (Match& match : matches) {
    ScenarioDiff diff =
        Diff(match.key, match.before, match.after, result.options, spreads, &result);
    if (!match.note.empty()) {
      diff.agent = "";
      diff.note = std::move(match.note);
    }
    if (!diff.version_change.empty()) {
      diff.note =
          absl::StrCat(diff.note, diff.note.empty() ? "" : "; ",
                       "releases changed: ", diff.version_change, ", a likely cause of any change");
    }
    result.scenarios.push_back(std::move(diff));
  }
  std::sort(result.scenarios.begin(), result.scenarios.end(),
            [](const ScenarioDiff& a, const ScenarioDiff& b) {
              return std::tie(a.concurrency, a.tier, a.agent) <
                     std::tie(b.concurrency, b.tier, b.agent);
            });
  for (const std::vector<RegressionMetric>& metrics : complete) {
    std::vector<MetricDiff*> tests;
    for (ScenarioDiff& scenario : result.scenarios) {
      for (RegressionMetric metric : metrics) {
        tests.push_back(&scenario.metrics[static_cast<size_t>(metric)]);
      }
    }
    TestFamily family = ControlFamilyWise(
        tests, result.options, FamilyText(metrics, static_cast<int>(result.scenarios.size())));
    family.metrics = metrics;
    family.scenarios = static_cast<int>(result.scenarios.size());
    result.families.push_back(std::move(family));
  }
  return result;
}

}  // namespace kvbench::regression
