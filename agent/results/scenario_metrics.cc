#include "agent/results/scenario_metrics.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/stats/percentiles.h"

namespace kvbench::agent::results {
namespace {

using runner::RequestRecord;
using stats::Mean;
using stats::Percentile;

// Calls `set` with the value when there is one; leaves the optional field unset otherwise.
template <typename Setter>
void SetIfPresent(const std::optional<double>& value, Setter set) {
  if (value.has_value()) set(*value);
}

// (later - baseline) / baseline x 100, or nullopt when undefined.
std::optional<double> PercentChange(const std::optional<double>& baseline,
                                    const std::optional<double>& later) {
  if (!baseline.has_value() || !later.has_value() || *baseline <= 0.0) return std::nullopt;
  return (*later - *baseline) / *baseline * 100.0;
}

void FillTtft(const std::vector<RequestRecord>& records, v1::LatencyMetrics& out) {
  std::vector<double> ttfts;
  std::map<int, std::vector<double>> by_round;  // every round seen, possibly without samples
  for (const RequestRecord& record : records) {
    std::vector<double>& round_samples = by_round[record.round];
    if (!record.ok() || !record.ttft_s.has_value()) continue;
    ttfts.push_back(*record.ttft_s);
    round_samples.push_back(*record.ttft_s);
  }
  SetIfPresent(Mean(ttfts), [&](double v) { out.set_ttft_mean_s(v); });
  SetIfPresent(Percentile(ttfts, 50), [&](double v) { out.set_ttft_p50_s(v); });
  SetIfPresent(Percentile(ttfts, 90), [&](double v) { out.set_ttft_p90_s(v); });
  SetIfPresent(Percentile(ttfts, 95), [&](double v) { out.set_ttft_p95_s(v); });
  SetIfPresent(Percentile(ttfts, 99), [&](double v) { out.set_ttft_p99_s(v); });

  std::vector<double> first_round;
  std::vector<double> later_rounds;
  for (const auto& [round, samples] : by_round) {
    v1::RoundLatency* entry = out.add_ttft_by_round();
    entry->set_round(round);
    entry->set_count(static_cast<int>(samples.size()));
    SetIfPresent(Percentile(samples, 50), [&](double v) { entry->set_ttft_p50_s(v); });
    SetIfPresent(Percentile(samples, 95), [&](double v) { entry->set_ttft_p95_s(v); });
    SetIfPresent(Mean(samples), [&](double v) { entry->set_ttft_mean_s(v); });
    if (round == 1) first_round.insert(first_round.end(), samples.begin(), samples.end());
    if (round >= 2) later_rounds.insert(later_rounds.end(), samples.begin(), samples.end());
  }
  SetIfPresent(PercentChange(Percentile(first_round, 50), Percentile(later_rounds, 50)),
               [&](double v) { out.set_ttft_degradation_median_pct(v); });
  SetIfPresent(PercentChange(Percentile(first_round, 95), Percentile(later_rounds, 95)),
               [&](double v) { out.set_ttft_degradation_p95_pct(v); });
}

void FillThroughput(const std::vector<RequestRecord>& records, v1::LatencyMetrics& out) {
  std::vector<double> tpots;
  std::vector<double> lags;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::optional<std::int64_t> cached_tokens;
  std::int64_t completed = 0;
  std::optional<double> window_start;
  std::optional<double> window_end;
  for (const RequestRecord& record : records) {
    window_start = std::min(window_start.value_or(record.scheduled_s), record.scheduled_s);
    window_end = std::max(window_end.value_or(record.end_s), record.end_s);
    lags.push_back(record.sent_s - record.scheduled_s);
    if (!record.ok()) continue;
    ++completed;
    input_tokens += record.prompt_tokens;
    output_tokens += record.output_tokens;
    if (record.cached_tokens) cached_tokens = cached_tokens.value_or(0) + *record.cached_tokens;
    if (record.output_tokens >= 2 && record.first_token_s.has_value()) {
      tpots.push_back((record.end_s - *record.first_token_s) / (record.output_tokens - 1));
    }
  }
  SetIfPresent(Mean(tpots), [&](double v) { out.set_tpot_mean_s(v); });
  SetIfPresent(Percentile(lags, 99), [&](double v) { out.set_dispatch_lag_p99_s(v); });
  out.set_requests_completed(completed);
  out.set_prompt_tokens_total(input_tokens);
  out.set_output_tokens_total(output_tokens);
  if (cached_tokens) out.set_cached_tokens_total(*cached_tokens);
  const double window = records.empty() ? 0.0 : *window_end - *window_start;
  out.set_duration_s(window);
  if (window > 0.0) {
    out.set_input_tokens_per_s(static_cast<double>(input_tokens) / window);
    out.set_output_tokens_per_s(static_cast<double>(output_tokens) / window);
    out.set_requests_per_s(static_cast<double>(completed) / window);
  }
}

}  // namespace

v1::LatencyMetrics ComputeLatencyMetrics(const std::vector<RequestRecord>& records) {
  v1::LatencyMetrics out;
  FillTtft(records, out);
  FillThroughput(records, out);
  return out;
}

v1::SessionCounts ComputeSessionCounts(const std::vector<RequestRecord>& records,
                                       const SessionPlan& plan) {
  struct UserState {
    int expected = 0;  // 0: not planned, never complete
    int sendable = 0;
    bool failed = false;
    bool sent = false;
    std::set<int> ok_rounds;
  };
  std::map<std::string, UserState> users;
  for (const PlannedUser& planned : plan.planned_users) {
    users[planned.user_id].expected = planned.expected_rounds;
    users[planned.user_id].sendable = std::min(planned.sendable(), planned.expected_rounds);
  }
  v1::SessionCounts out;
  std::int64_t failed_requests = 0;
  const RequestRecord* first_failed = nullptr;
  for (const RequestRecord& record : records) {
    UserState& user = users[record.user_id];
    user.sent = true;
    if (record.ok()) {
      user.ok_rounds.insert(record.round);
    } else {
      user.failed = true;
      ++failed_requests;
      if (first_failed == nullptr || record.sent_s < first_failed->sent_s) first_failed = &record;
    }
  }
  if (first_failed != nullptr) {
    // The status only when it says more than the error (an error mid-stream came with a 200).
    const int status = first_failed->http_status;
    out.set_first_error(status > 0 && status != 200 ? absl::StrCat(*first_failed->error, " (HTTP ",
                                                                   first_failed->http_status, ")")
                                                    : *first_failed->error);
  }
  auto covers = [](const UserState& user, int rounds) {
    for (int round = 1; round <= rounds; ++round) {
      if (user.ok_rounds.count(round) == 0) return false;
    }
    return true;
  };
  for (const auto& [user_id, user] : users) {
    if (user.failed) {
      out.set_error(out.error() + 1);
    } else if (user.expected > 0 && covers(user, user.expected)) {
      out.set_complete(out.complete() + 1);
    } else if (user.expected > 0 && user.sendable < user.expected && covers(user, user.sendable)) {
      out.set_truncated_by_isl(out.truncated_by_isl() + 1);
    } else if (!user.sent) {
      out.set_not_started(out.not_started() + 1);
    } else {
      out.set_incomplete(out.incomplete() + 1);
    }
  }
  int achieved = std::min(plan.requested, plan.dataset_ceiling);
  if (plan.dataset_ceiling_under_isl) {
    out.set_dataset_ceiling_under_isl(*plan.dataset_ceiling_under_isl);
    achieved = std::min(achieved, *plan.dataset_ceiling_under_isl);
  }
  out.set_requested(plan.requested);
  out.set_dataset_ceiling(plan.dataset_ceiling);
  out.set_achieved(achieved);
  out.set_selection(plan.selection);
  out.set_total(static_cast<int>(users.size()));
  out.set_failed_requests(failed_requests);
  return out;
}

v1::SessionCounts ComputeSessionCounts(const std::vector<RequestRecord>& records,
                                       int requested_users, int dataset_ceiling,
                                       const std::vector<PlannedUser>& planned_users) {
  SessionPlan plan;
  plan.requested = requested_users;
  plan.dataset_ceiling = dataset_ceiling;
  plan.planned_users = planned_users;
  return ComputeSessionCounts(records, plan);
}

}  // namespace kvbench::agent::results
