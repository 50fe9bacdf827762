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
#include "controller/kvctl/result_columns.h"

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

// A capacity search's answer as a history metric (issue #30): "capacity.users" (the capacity),
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

absl::StatusOr<report::History> BuildHistory(std::vector<v1::Job> jobs, const std::string& metric,
                                             const std::string& title) {
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
  for (size_t run = 0; run < jobs.size(); ++run) {
    const v1::Job& job = jobs[run];
    history.runs.push_back(
        {job.job_id(), FireTime(job),
         absl::AsciiStrToLower(absl::StripPrefix(v1::JobState_Name(job.state()), "JOB_STATE_"))});
    // A search's capacities are one line per tier, at concurrency 0 (the search's own).
    for (const v1::TierCapacity& tier : job.capacity().tiers()) {
      numeric_fields.insert(kCapacityUsersMetric);
      const std::optional<double> value = CapacityValue(tier, metric);
      if (!absl::StartsWith(metric, "capacity.")) continue;
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
      report::HistorySeries& line = series[key];
      line.agent_id = std::get<0>(key);
      line.concurrency = std::get<1>(key);
      line.tier = status.scenario().tier();
      line.values.resize(jobs.size());
      if (status.state() != v1::SCENARIO_STATE_SUCCEEDED || !status.has_result()) continue;
      for (const auto& [column, text] : FlattenResult(status.result())) {
        double value = 0;
        const bool is_number = absl::SimpleAtod(text, &value);
        if (is_number) numeric_fields.insert(column);
        if (column != metric) continue;
        found = true;
        if (!is_number) {
          return absl::InvalidArgumentError(absl::StrCat("--metric ", metric, " is not a number (",
                                                         job.job_id(), " has \"", text, "\")"));
        }
        line.values[run] = value;
      }
    }
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
