#include "controller/kvctl/history_data.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "common/lifecycle/lifecycle.h"
#include "controller/alerts/alert_text.h"
#include "controller/kvctl/print/result_columns.h"
#include "controller/results/metric_catalog.h"
#include "controller/results/simulated_time_display.h"

namespace kvbench::kvctl {
namespace {

constexpr char kFireTimeLabel[] = "kvbench.fire_time";
// Numeric fields named when the metric is unknown.
constexpr size_t kFieldsSuggested = 12;

std::string FireTime(const v1::Job& job) {
  auto label = job.spec().labels().find(kFireTimeLabel);
  if (label != job.spec().labels().end()) return label->second;
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixMillis(job.submit_unix_ms()),
                          absl::UTCTimeZone());
}

std::string AgentOf(const v1::ScenarioStatus& status) {
  return status.scenario().agent_id().empty() ? status.agent_id() : status.scenario().agent_id();
}

double TimeOf(const v1::Job& job, const std::string& fire_time) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, fire_time, &time, &error)) {
    time = absl::FromUnixMillis(job.submit_unix_ms());
  }
  return absl::ToDoubleSeconds(time - absl::UnixEpoch());
}

bool Keeps(const HistoryFilter& filter, const std::string& agent, v1::Tier tier, int concurrency) {
  return (filter.agent.empty() || filter.agent == agent) &&
         (!filter.tier.has_value() || *filter.tier == tier) &&
         (!filter.concurrency.has_value() || *filter.concurrency == concurrency);
}

// "c2 valid", "c8@sim-a not_exercised".
std::vector<std::string> Verdicts(const v1::Job& job) {
  std::vector<std::string> verdicts;
  for (const v1::Validity& validity : job.validity()) {
    verdicts.push_back(absl::StrCat(validity.comparison_group(), " ",
                                    absl::AsciiStrToLower(absl::StripPrefix(
                                        v1::Verdict_Name(validity.verdict()), "VERDICT_"))));
  }
  return verdicts;
}

// The result field `metric` as shown: a latency field of a simulated result from its
// simulated_latency.
std::string ShownField(const v1::ScenarioResult& result, const std::string& metric) {
  constexpr absl::string_view kLatency = "latency.";
  if (!results::IsSimulated(result) || !absl::StartsWith(metric, kLatency)) return metric;
  return absl::StrCat("simulated_", metric);
}

// A capacity search's answer as a history metric: "capacity.users" (the capacity),
// "capacity.low", "capacity.high" (the interval it is known to); nullopt for another metric or
// a tier without one.
std::optional<double> CapacityValue(const v1::TierCapacity& tier, const std::string& metric) {
  if (!tier.finished() || !tier.has_capacity()) return std::nullopt;
  if (metric == kCapacityUsersMetric) return tier.capacity();
  if (metric == kCapacityLowMetric) return tier.low();
  if (metric == kCapacityHighMetric) return tier.high();
  return std::nullopt;
}

}  // namespace

std::string RegressionMetricOf(const std::string& field) {
  if (const results::MetricInfo* metric = results::FindMetricByField(field)) return metric->key;
  const size_t dot = field.rfind('.');
  return dot == std::string::npos ? field : field.substr(dot + 1);
}

absl::StatusOr<report::History> BuildHistory(std::vector<v1::Job> jobs, const std::string& metric,
                                             const std::string& title,
                                             const HistoryFilter& filter) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const v1::Job& a, const v1::Job& b) {
    return a.submit_unix_ms() < b.submit_unix_ms();
  });
  report::History history;
  history.title = title;
  history.metric = metric;
  using Key = std::tuple<std::string, int, int>;  // agent, concurrency, tier
  std::map<Key, report::HistorySeries> series;
  std::set<std::string> numeric_fields;
  bool found = false;
  std::set<std::string> agents, tiers, concurrencies;  // of every line, before the filter
  for (size_t run = 0; run < jobs.size(); ++run) {
    const v1::Job& job = jobs[run];
    const std::string fire_time = FireTime(job);
    history.runs.push_back(
        {job.job_id(), fire_time, TimeOf(job, fire_time),
         absl::AsciiStrToLower(absl::StripPrefix(v1::JobState_Name(job.state()), "JOB_STATE_")),
         Verdicts(job), job.analysis().alerts_size()});
    for (const v1::RegressionAlert& alert : job.analysis().alerts()) {
      if (alert.metric() != RegressionMetricOf(metric) ||
          !Keeps(filter, alert.agent(), alert.tier(), alert.concurrency())) {
        continue;
      }
      history.alerts.push_back(
          {alert.agent(), alert.tier(), alert.concurrency(), run, controller::AlertSummary(alert)});
    }
    // A search's capacities are one line per tier, at concurrency 0 (the search's own).
    for (const v1::TierCapacity& tier : job.capacity().tiers()) {
      numeric_fields.insert(kCapacityUsersMetric);
      const std::optional<double> value = CapacityValue(tier, metric);
      if (!absl::StartsWith(metric, "capacity.") || !Keeps(filter, "", tier.tier(), 0)) continue;
      report::HistorySeries& line = series[Key{"", 0, tier.tier()}];
      line.tier = tier.tier();
      line.values.resize(jobs.size());
      if (!value.has_value()) continue;
      found = true;
      line.values[run] = *value;
    }
    for (const v1::ScenarioStatus& status : job.scenarios()) {
      if (absl::StartsWith(metric, "capacity.")) break;
      const Key key{AgentOf(status), status.scenario().concurrency(), status.scenario().tier()};
      agents.insert(std::get<0>(key).empty() ? "-" : std::get<0>(key));
      tiers.insert(v1::Tier_Name(status.scenario().tier()));
      concurrencies.insert(absl::StrCat(std::get<1>(key)));
      if (!Keeps(filter, std::get<0>(key), status.scenario().tier(), std::get<1>(key))) continue;
      report::HistorySeries& line = series[key];
      line.agent_id = std::get<0>(key);
      line.concurrency = std::get<1>(key);
      line.tier = status.scenario().tier();
      line.values.resize(jobs.size());
      if (!SucceededWithResult(status)) continue;
      const std::string field = ShownField(status.result(), metric);
      if (field != metric) history.simulated = true;
      for (const auto& [column, text] : FlattenResult(status.result())) {
        double value = 0;
        const bool is_number = absl::SimpleAtod(text, &value);
        if (is_number) numeric_fields.insert(column);
        if (column != field) continue;
        found = true;
        if (!is_number) {
          return absl::InvalidArgumentError(absl::StrCat("--metric ", metric, " is not a number (",
                                                         job.job_id(), " has \"", text, "\")"));
        }
        line.values[run] = value;
      }
    }
  }
  if (series.empty() && !agents.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no line of these runs matches --agent/--tier/--concurrency; they have agents ",
        absl::StrJoin(agents, ", "), ", tiers ", absl::StrJoin(tiers, ", "), ", concurrency ",
        absl::StrJoin(concurrencies, ", ")));
  }
  if (!jobs.empty() && !found) {
    std::vector<std::string> some;
    for (const std::string& field : numeric_fields) {
      if (some.size() == kFieldsSuggested) break;
      some.push_back(field);
    }
    return absl::NotFoundError(absl::StrCat("no run's results have the field ", metric,
                                            "; numeric fields include: ", absl::StrJoin(some, ", "),
                                            " (kvctl results JOB --output csv lists them all)"));
  }
  for (auto& [key, line] : series) {
    line.values.resize(jobs.size());
    history.series.push_back(std::move(line));
  }
  return history;
}

}  // namespace kvbench::kvctl
