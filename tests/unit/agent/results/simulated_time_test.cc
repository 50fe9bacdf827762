#include "agent/results/simulated_time.h"

#include <catch2/catch.hpp>

namespace kvbench::agent::results {
namespace {

TEST_CASE("ToSimulatedTime: durations ÷ scale, rates × scale, the rest as observed", "[results]") {
  v1::LatencyMetrics observed;
  observed.set_ttft_mean_s(0.003);
  observed.set_ttft_p50_s(0.0021);
  observed.set_ttft_p95_s(0.008);
  observed.set_ttft_p99_s(0.012);
  observed.set_tpot_mean_s(0.0005);
  observed.set_duration_s(4.7);
  observed.set_dispatch_lag_p99_s(0.0001);
  observed.set_requests_per_s(80);
  observed.set_input_tokens_per_s(200000);
  observed.set_output_tokens_per_s(5000);
  observed.set_ttft_degradation_median_pct(-24);
  observed.set_reuse_any_user_pct(91.5);
  observed.set_requests_completed(400);
  v1::RoundLatency* round = observed.add_ttft_by_round();
  round->set_round(2);
  round->set_count(16);
  round->set_ttft_p50_s(0.004);
  observed.add_ttft_by_round()->set_round(3);  // no samples: nulls

  // The demo's scale: 0.05 real seconds per simulated second, observed x 20.
  const v1::LatencyMetrics simulated = ToSimulatedTime(observed, 0.05);
  CHECK(simulated.ttft_mean_s() == Approx(0.06));
  CHECK(simulated.ttft_p50_s() == Approx(0.042));  // 2.1 ms observed: 42 ms on the H200
  CHECK(simulated.ttft_p95_s() == Approx(0.16));
  CHECK(simulated.ttft_p99_s() == Approx(0.24));
  CHECK_FALSE(simulated.has_ttft_p90_s());  // null stays null
  CHECK(simulated.tpot_mean_s() == Approx(0.01));
  CHECK(simulated.duration_s() == Approx(94));
  CHECK(simulated.dispatch_lag_p99_s() == Approx(0.002));
  CHECK(simulated.requests_per_s() == Approx(4));
  CHECK(simulated.input_tokens_per_s() == Approx(10000));
  CHECK(simulated.output_tokens_per_s() == Approx(250));
  CHECK(simulated.ttft_degradation_median_pct() == -24);
  CHECK_FALSE(simulated.has_ttft_degradation_p95_pct());
  CHECK(simulated.reuse_any_user_pct() == 91.5);
  CHECK(simulated.requests_completed() == 400);
  REQUIRE(simulated.ttft_by_round_size() == 2);
  CHECK(simulated.ttft_by_round(0).round() == 2);
  CHECK(simulated.ttft_by_round(0).count() == 16);
  CHECK(simulated.ttft_by_round(0).ttft_p50_s() == Approx(0.08));
  CHECK_FALSE(simulated.ttft_by_round(0).has_ttft_p95_s());
  CHECK_FALSE(simulated.ttft_by_round(1).has_ttft_p50_s());

  // Scale 1: the same numbers.
  const v1::LatencyMetrics same = ToSimulatedTime(observed, 1.0);
  CHECK(same.ttft_p50_s() == observed.ttft_p50_s());
  CHECK(same.requests_per_s() == observed.requests_per_s());
}

}  // namespace
}  // namespace kvbench::agent::results
