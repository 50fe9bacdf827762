#include "controller/results/host_saturation.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kvbench::results {
namespace {

// Real seconds → the engine's (simulated for kvsim, real otherwise).
double EngineSeconds(const v1::ScenarioResult& result, double real_s) {
  const double scale =
      result.has_sim_time_scale() && result.sim_time_scale() > 0 ? result.sim_time_scale() : 1.0;
  return real_s / scale;
}

// "12.3 ms" (and, for a simulated engine, "12.3 ms simulated").
std::string Millis(const v1::ScenarioResult& result, double seconds) {
  return absl::StrFormat("%.1f ms%s", seconds * 1000,
                         result.has_sim_time_scale() ? " simulated" : "");
}

}  // namespace

std::vector<std::string> HostSaturationFindings(const v1::ScenarioResult& result) {
  std::vector<std::string> findings;
  const v1::HostLoad& load = result.host_load();
  if (load.has_sim_clock_stalls()) {
    if (load.sim_clock_stalls() > 0) {
      findings.push_back(absl::StrCat("the simulated clock wrote off ", load.sim_clock_stalls(),
                                      " message", load.sim_clock_stalls() == 1 ? "" : "s",
                                      " that no one received (the run no longer reproduces)"));
    }
    return findings;
  }
  const v1::HostTelemetry& telemetry = result.telemetry();
  if (telemetry.has_cpu_utilization_pct_mean() &&
      telemetry.cpu_utilization_pct_mean() > kHostCpuBusyLimitPct) {
    findings.push_back(absl::StrFormat("host CPU busy %.0f%% (limit %.0f%%)",
                                       telemetry.cpu_utilization_pct_mean(), kHostCpuBusyLimitPct));
  }
  if (load.has_runner_loop_lag_p90_s()) {
    const double lag = EngineSeconds(result, load.runner_loop_lag_p90_s());
    if (lag > kRunnerLoopLagP90LimitS) {
      findings.push_back(absl::StrCat("kv-runner's loop late by ", Millis(result, lag),
                                      " at p90 (limit ", Millis(result, kRunnerLoopLagP90LimitS),
                                      ")"));
    }
  }
  if (load.has_sim_step_lateness_p90_s()) {
    const double late = EngineSeconds(result, load.sim_step_lateness_p90_s());
    if (late > kSimStepLatenessP90LimitS) {
      findings.push_back(absl::StrCat("kvsim-vllm's steps late by ", Millis(result, late),
                                      " at p90 (limit ", Millis(result, kSimStepLatenessP90LimitS),
                                      ")"));
    }
  }
  return findings;
}

std::string HostSaturationMessage(const v1::ScenarioResult& result) {
  const std::vector<std::string> findings = HostSaturationFindings(result);
  if (findings.empty()) return "";
  if (result.host_load().has_sim_clock_stalls()) {
    return absl::StrCat(result.scenario_id(), ": ", absl::StrJoin(findings, ", "),
                        " during the replay; simulated latencies include how late the host "
                        "answered");
  }
  return absl::StrCat(result.scenario_id(), ": ", absl::StrJoin(findings, ", "),
                      " during the replay; ",
                      result.has_sim_time_scale() ? "simulated" : "measured",
                      " latencies include the host's queueing");
}

}  // namespace kvbench::results
