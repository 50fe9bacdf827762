#include "agent/results/simulated_time.h"

#include "common/log/logging.h"

namespace kvbench::agent::results {

v1::LatencyMetrics ToSimulatedTime(const v1::LatencyMetrics& observed, double time_scale) {
  KV_CHECK(time_scale > 0) << "ToSimulatedTime: time_scale=" << time_scale;
  v1::LatencyMetrics simulated = observed;
  const double per_duration = 1.0 / time_scale;
  auto duration = [&](bool has, double value, auto set) {
    if (has) set(value * per_duration);
  };
  auto rate = [&](bool has, double value, auto set) {
    if (has) set(value * time_scale);
  };
  v1::LatencyMetrics* s = &simulated;
  const v1::LatencyMetrics& o = observed;
  duration(o.has_ttft_mean_s(), o.ttft_mean_s(), [s](double v) { s->set_ttft_mean_s(v); });
  duration(o.has_ttft_p50_s(), o.ttft_p50_s(), [s](double v) { s->set_ttft_p50_s(v); });
  duration(o.has_ttft_p90_s(), o.ttft_p90_s(), [s](double v) { s->set_ttft_p90_s(v); });
  duration(o.has_ttft_p95_s(), o.ttft_p95_s(), [s](double v) { s->set_ttft_p95_s(v); });
  duration(o.has_ttft_p99_s(), o.ttft_p99_s(), [s](double v) { s->set_ttft_p99_s(v); });
  duration(o.has_tpot_mean_s(), o.tpot_mean_s(), [s](double v) { s->set_tpot_mean_s(v); });
  duration(o.has_dispatch_lag_p99_s(), o.dispatch_lag_p99_s(),
           [s](double v) { s->set_dispatch_lag_p99_s(v); });
  s->set_duration_s(o.duration_s() * per_duration);
  rate(o.has_input_tokens_per_s(), o.input_tokens_per_s(),
       [s](double v) { s->set_input_tokens_per_s(v); });
  rate(o.has_output_tokens_per_s(), o.output_tokens_per_s(),
       [s](double v) { s->set_output_tokens_per_s(v); });
  rate(o.has_requests_per_s(), o.requests_per_s(), [s](double v) { s->set_requests_per_s(v); });
  for (v1::RoundLatency& round : *s->mutable_ttft_by_round()) {
    const v1::RoundLatency seen = round;
    duration(seen.has_ttft_p50_s(), seen.ttft_p50_s(), [&](double v) { round.set_ttft_p50_s(v); });
    duration(seen.has_ttft_p95_s(), seen.ttft_p95_s(), [&](double v) { round.set_ttft_p95_s(v); });
    duration(seen.has_ttft_mean_s(), seen.ttft_mean_s(),
             [&](double v) { round.set_ttft_mean_s(v); });
  }
  return simulated;
}

}  // namespace kvbench::agent::results
