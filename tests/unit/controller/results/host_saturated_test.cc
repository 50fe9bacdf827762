#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "controller/results/host_saturation.h"
#include "controller/results/validity.h"
#include "tests/unit/controller/results/validity_fixture.h"

// The host_saturated check on synthetic results whose answers are known: each figure
// just over and just under its limit, figures not measured, simulated vs real seconds.
namespace kvbench::results {
namespace {

using namespace testing;  // NOLINT(build/namespaces): the fixture of these tests

constexpr double kScale = 0.05;  // the sim time scale of the synthetic results

// The clean pair with the CPU_RAM scenario's result changed by `change`.
v1::Validity VerdictWith(const std::function<void(v1::ScenarioResult*)>& change) {
  std::vector<ScenarioRun> runs = CleanPair();
  for (ScenarioRun& run : runs) run.result->set_sim_time_scale(kScale);
  change(&*runs[1].result);
  return OnlyVerdict(runs);
}

std::vector<std::string> HostReasons(const v1::Validity& validity) {
  std::vector<std::string> messages;
  for (const v1::ValidityReason& reason : validity.reasons()) {
    if (reason.code() == kHostSaturated) messages.push_back(reason.message());
  }
  return messages;
}

TEST_CASE("host_saturated: host CPU busy over its limit names the figure and the limit",
          "[validity][host]") {
  const v1::Validity validity = VerdictWith([](v1::ScenarioResult* result) {
    result->mutable_telemetry()->set_cpu_utilization_pct_mean(97.2);
  });
  CHECK(validity.verdict() == v1::VERDICT_INVALID);
  CHECK(HostReasons(validity) ==
        std::vector<std::string>{"01-cpu-ram-c8: host CPU busy 97% (limit 90%) during the replay; "
                                 "simulated latencies include the host's queueing"});
  // The evidence of offload still shows: what the verdict would have been on a quiet host.
  const std::vector<std::string> notes = NoteCodes(validity);
  CHECK(std::find(notes.begin(), notes.end(), kOffloadExercised) != notes.end());
}

TEST_CASE("host_saturated: on the shared simulated clock only its stalls count",
          "[validity][host]") {
  const auto busy = [](v1::ScenarioResult* result) {
    result->mutable_telemetry()->set_cpu_utilization_pct_mean(99);
    result->mutable_host_load()->set_runner_loop_lag_p90_s(kScale * 0.5);
    result->mutable_host_load()->set_sim_step_lateness_p90_s(kScale * 0.5);
  };
  // A busy host made the run slower, not different: no reason.
  CHECK(HostReasons(VerdictWith([&](v1::ScenarioResult* result) {
          busy(result);
          result->mutable_host_load()->set_sim_clock_stalls(0);
        })).empty());
  CHECK(HostReasons(VerdictWith([&](v1::ScenarioResult* result) {
          busy(result);
          result->mutable_host_load()->set_sim_clock_stalls(2);
        })) == std::vector<std::string>{
                   "01-cpu-ram-c8: the simulated clock wrote off 2 messages that no one received "
                   "(the run no longer reproduces) during the replay; simulated latencies include "
                   "how late the host answered"});
}

TEST_CASE("host_saturated: a not_exercised group keeps its reason beside it", "[validity][host]") {
  std::vector<ScenarioRun> runs = CleanPair();
  // The GPU tier served all the reuse there was: not exercised, whatever the host did.
  runs[0].result->mutable_latency()->set_cached_tokens_total(79000);  // of 80,000 reusable
  runs[1].result->mutable_telemetry()->set_cpu_utilization_pct_mean(99);
  const v1::Validity validity = OnlyVerdict(runs);
  CHECK(validity.verdict() == v1::VERDICT_INVALID);
  CHECK(Codes(validity) == std::vector<std::string>{kGpuNeverRanShort, kHostSaturated});
}

TEST_CASE("host_saturated: every figure just under its limit raises nothing", "[validity][host]") {
  const v1::Validity validity = VerdictWith([](v1::ScenarioResult* result) {
    result->mutable_telemetry()->set_cpu_utilization_pct_mean(kHostCpuBusyLimitPct - 0.1);
    v1::HostLoad* load = result->mutable_host_load();
    // Real seconds: the limits are in simulated seconds (÷ the scale).
    load->set_runner_loop_lag_p90_s(kRunnerLoopLagP90LimitS * kScale * 0.99);
    // The tails are not checked: one stall of the host is not saturation.
    load->set_runner_loop_lag_p99_s(10);
    load->set_runner_loop_lag_max_s(10);
    load->set_sim_steps(1000);
    load->set_sim_step_lateness_p90_s(kSimStepLatenessP90LimitS * kScale * 0.99);
    load->set_sim_step_lateness_mean_s(10);
    load->set_sim_step_lateness_p99_s(10);
  });
  CHECK(validity.verdict() == v1::VERDICT_VALID);
  CHECK(HostReasons(validity).empty());
}

TEST_CASE("host_saturated: each lag over its limit, in simulated milliseconds",
          "[validity][host]") {
  SECTION("kv-runner's loop") {
    const v1::Validity validity = VerdictWith([](v1::ScenarioResult* result) {
      result->mutable_host_load()->set_runner_loop_lag_p90_s(kRunnerLoopLagP90LimitS * kScale * 2);
    });
    const std::vector<std::string> reasons = HostReasons(validity);
    REQUIRE(reasons.size() == 1);
    CHECK_THAT(reasons[0], Catch::StartsWith("01-cpu-ram-c8: kv-runner's loop late by "));
    CHECK_THAT(reasons[0], Catch::Contains(" ms simulated at p90 (limit "));
    CHECK(HostSaturationFindings(*CleanPair()[0].result).empty());
  }
  SECTION("kvsim-vllm's steps") {
    const v1::Validity validity = VerdictWith([](v1::ScenarioResult* result) {
      result->mutable_host_load()->set_sim_steps(100);
      result->mutable_host_load()->set_sim_step_lateness_p90_s(0.002);  // 40 ms simulated
    });
    const std::vector<std::string> reasons = HostReasons(validity);
    REQUIRE(reasons.size() == 1);
    CHECK_THAT(reasons[0],
               Catch::StartsWith("01-cpu-ram-c8: kvsim-vllm's steps late by 40.0 ms simulated at "
                                 "p90 (limit 10.0 ms simulated)"));
  }
}

TEST_CASE("host_saturated: a real engine's figures are real milliseconds", "[validity][host]") {
  v1::ScenarioResult result = *CleanPair()[0].result;  // no sim_time_scale: a real engine
  result.mutable_host_load()->set_runner_loop_lag_p90_s(kRunnerLoopLagP90LimitS * 2);
  result.mutable_telemetry()->set_cpu_utilization_pct_mean(99.6);
  const std::string message = HostSaturationMessage(result);
  CHECK_THAT(message, Catch::StartsWith("00-gpu-c8: host CPU busy 100% (limit 90%), kv-runner's "
                                        "loop late by "));
  CHECK_THAT(message, Catch::Contains(" ms at p90 (limit 20.0 ms)"));
  CHECK_THAT(message, !Catch::Contains("simulated"));
  CHECK_THAT(message, Catch::EndsWith("measured latencies include the host's queueing"));
}

TEST_CASE("host_saturated: figures not measured are not checked", "[validity][host]") {
  // Old results (no host_load, no CPU figure), a real engine (no simulator lateness) and a
  // runner that could not probe its loop: nothing to check, the clean verdict stands.
  const v1::Validity validity = VerdictWith([](v1::ScenarioResult* result) {
    result->clear_telemetry();
    result->clear_host_load();
    result->mutable_host_load()->set_runner_send_lag_p99_s(0.0001);
  });
  CHECK(validity.verdict() == v1::VERDICT_VALID);
  CHECK(HostSaturationMessage(*CleanPair()[1].result).empty());
}

TEST_CASE("host_saturated: one reason per saturated scenario of the group", "[validity][host]") {
  std::vector<ScenarioRun> runs = CleanPair();
  for (ScenarioRun& run : runs) run.result->mutable_telemetry()->set_cpu_utilization_pct_mean(95);
  const std::vector<std::string> reasons = HostReasons(OnlyVerdict(runs));
  REQUIRE(reasons.size() == 2);
  CHECK_THAT(reasons[0], Catch::StartsWith("00-gpu-c8: host CPU busy 95%"));
  CHECK_THAT(reasons[1], Catch::StartsWith("01-cpu-ram-c8: host CPU busy 95%"));
}

}  // namespace
}  // namespace kvbench::results
