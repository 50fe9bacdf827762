#include "agent/results/runner_lag.h"

#include <algorithm>

#include "common/stats/percentiles.h"

namespace kvbench::agent::results {
namespace {

struct LagFields {
  void (v1::HostLoad::*set_p50)(double);
  void (v1::HostLoad::*set_p90)(double);  // may be null
  void (v1::HostLoad::*set_p99)(double);
  void (v1::HostLoad::*set_max)(double);
};

void SetSummary(std::vector<double> values, const LagFields& fields, v1::HostLoad* out) {
  if (values.empty()) return;
  std::sort(values.begin(), values.end());
  (out->*fields.set_p50)(*stats::PercentileOfSorted(values, 50));
  if (fields.set_p90 != nullptr) (out->*fields.set_p90)(*stats::PercentileOfSorted(values, 90));
  (out->*fields.set_p99)(*stats::PercentileOfSorted(values, 99));
  (out->*fields.set_max)(values.back());
}

}  // namespace

v1::HostLoad ComputeRunnerLag(const std::vector<runner::RequestRecord>& records) {
  std::vector<double> send_lags;
  std::vector<double> loop_lags;
  for (const runner::RequestRecord& record : records) {
    send_lags.push_back(record.sent_s - record.scheduled_s);
    if (record.loop_lag_s) loop_lags.push_back(*record.loop_lag_s);
  }
  v1::HostLoad out;
  SetSummary(std::move(send_lags),
             {&v1::HostLoad::set_runner_send_lag_p50_s, nullptr,
              &v1::HostLoad::set_runner_send_lag_p99_s, &v1::HostLoad::set_runner_send_lag_max_s},
             &out);
  SetSummary(std::move(loop_lags),
             {&v1::HostLoad::set_runner_loop_lag_p50_s, &v1::HostLoad::set_runner_loop_lag_p90_s,
              &v1::HostLoad::set_runner_loop_lag_p99_s, &v1::HostLoad::set_runner_loop_lag_max_s},
             &out);
  return out;
}

void AddRunnerLag(const v1::HostLoad& lag, nlohmann::json* summary) {
  auto put = [&](const char* key, bool has, double value) {
    (*summary)[key] = has ? nlohmann::json(value) : nlohmann::json(nullptr);
  };
#define KV_RUNNER_LAG_(field) put(#field, lag.has_##field(), lag.field())
  KV_RUNNER_LAG_(runner_send_lag_p50_s);
  KV_RUNNER_LAG_(runner_send_lag_p99_s);
  KV_RUNNER_LAG_(runner_send_lag_max_s);
  KV_RUNNER_LAG_(runner_loop_lag_p50_s);
  KV_RUNNER_LAG_(runner_loop_lag_p90_s);
  KV_RUNNER_LAG_(runner_loop_lag_p99_s);
  KV_RUNNER_LAG_(runner_loop_lag_max_s);
#undef KV_RUNNER_LAG_
}

}  // namespace kvbench::agent::results
