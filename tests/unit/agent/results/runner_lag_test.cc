#include "agent/results/runner_lag.h"

#include <catch2/catch.hpp>
#include <vector>

#include "tests/unit/agent/results/replay_fixture.h"

// kv-runner's own lateness from its records, hand-computed: percentiles as numpy's
// "linear" (percentiles.h), every record for the send lag, those with a loop lag for the loop.
namespace kvbench::agent::results {
namespace {

using testing::Failed;
using testing::Ok;

TEST_CASE("Runner lag: send and loop lag summaries of five records", "[results][host]") {
  std::vector<runner::RequestRecord> records = {
      Ok("a", 1, 0.0, 0.001, 0.1, 0.2, 10, 2),     // send lag 0.001
      Ok("a", 2, 0.2, 0.203, 0.3, 0.4, 10, 2),     // 0.003
      Ok("b", 1, 0.0, 0.0, 0.1, 0.2, 10, 2),       // 0
      Failed("b", 2, 0.2, 0.2105, 0.3, 10),        // 0.0105: failed requests count too
      Ok("c", 1, 0.0, 0.002, 0.05, 0.06, 10, 2)};  // 0.002
  records[0].loop_lag_s = 0.0004;
  records[1].loop_lag_s = 0.0001;
  records[3].loop_lag_s = 0.0100;
  records[4].loop_lag_s = 0.0002;  // records[2] has none: not measured, left out
  const v1::HostLoad lag = ComputeRunnerLag(records);
  // Send lags sorted: 0, 0.001, 0.002, 0.003, 0.0105; p50 at rank 2; p99 at rank 3.96.
  CHECK(lag.runner_send_lag_p50_s() == Approx(0.002));
  CHECK(lag.runner_send_lag_p99_s() == Approx(0.003 + 0.96 * 0.0075));
  CHECK(lag.runner_send_lag_max_s() == Approx(0.0105));
  // Loop lags sorted: 0.0001, 0.0002, 0.0004, 0.01; p50 at rank 1.5; p90 at 2.7; p99 at 2.97.
  CHECK(lag.runner_loop_lag_p50_s() == Approx(0.0003));
  CHECK(lag.runner_loop_lag_p90_s() == Approx(0.0004 + 0.7 * 0.0096));
  CHECK(lag.runner_loop_lag_p99_s() == Approx(0.0004 + 0.97 * 0.0096));
  CHECK(lag.runner_loop_lag_max_s() == Approx(0.01));
  CHECK_FALSE(lag.has_sim_steps());  // the simulator's figures come from the scrapes

  nlohmann::json summary = nlohmann::json::object();
  AddRunnerLag(lag, &summary);
  CHECK(summary["runner_send_lag_max_s"].get<double>() == Approx(0.0105));
  CHECK(summary["runner_loop_lag_p99_s"].get<double>() == Approx(lag.runner_loop_lag_p99_s()));
  CHECK(summary["runner_loop_lag_p90_s"].get<double>() == Approx(lag.runner_loop_lag_p90_s()));
  CHECK_FALSE(summary.contains("runner_send_lag_p90_s"));  // the send lag has no p90
}

TEST_CASE("Runner lag: no loop lag recorded is not measured, never zero", "[results][host]") {
  const std::vector<runner::RequestRecord> records = {Ok("a", 1, 0.0, 0.001, 0.1, 0.2, 10, 2)};
  const v1::HostLoad lag = ComputeRunnerLag(records);
  CHECK(lag.runner_send_lag_max_s() == Approx(0.001));
  CHECK_FALSE(lag.has_runner_loop_lag_p50_s());
  CHECK_FALSE(lag.has_runner_loop_lag_max_s());
  nlohmann::json summary = nlohmann::json::object();
  AddRunnerLag(lag, &summary);
  CHECK(summary["runner_loop_lag_p99_s"].is_null());

  const v1::HostLoad none = ComputeRunnerLag({});
  CHECK_FALSE(none.has_runner_send_lag_p50_s());
}

}  // namespace
}  // namespace kvbench::agent::results
