#pragma once

// Whether the host running a scenario was its bottleneck: the figures of the result's
// telemetry and host_load against stated limits. On a saturated host every latency measured
// includes the host's own queueing, and a simulated engine (whose clock is wall time ÷
// sim_time_scale) magnifies each late real millisecond 1 / sim_time_scale times. Pure.

#include <string>
#include <vector>

#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// The limits, and why. Measured with tests/bench/host_load.sh on this project's 2-core VM, the
// demo spec (docs/results.md "Host load"). Quiet, at sim_time_scale 0.25 its replays kept the host
// 13-38% busy, kvsim-vllm's steps 0.7-1.6 ms simulated late at p90 and kv-runner's loop lag p90 at
// 0.6-9.9 ms simulated. But in 6 of 7 runs at 0.25 (quiet, or beside others' builds) a stall of
// the VM (16-125 ms real: a step p99 of 64-506 ms simulated, a loop lag p99 up to 412) pushed
// some scenario's mean step lateness past 2 ms or its loop lag p99 past 20 ms. Hence tenth-worst
// figures: a stall moves the tail, a host that cannot keep up moves the body. At 0.05 on the quiet
// host: steps 3.5-122 ms late at p90, loop lag p90 4.8-34 ms (the 16-user scenarios past the
// limits). With two busy loops beside the 0.25 demo the host was 100% busy and the 16-user TTFT p50
// read 1.1-1.8x the quiet runs', while the lags' p90 stayed at 0.7-5.6 ms (steps) and 1-15.5 ms
// (loop): the kernel wakes sleeping threads first, and that queueing shows in the CPU figure.
//
// Whole-machine CPU busy over the replay, %: past it the run's threads (engine steps, kv-runner's
// loop, Caddy) queue for a core more often than not.
inline constexpr double kHostCpuBusyLimitPct = 90;
// kv-runner's loop lag p90 (HostLoad.runner_loop_lag_p90_s) in the engine's seconds: real ÷
// sim_time_scale for a simulated engine. Above the busy-loop runs' 15.5 ms; one request in ten
// stamped later than this moves the reported percentiles (the demo's 2-user TTFT p50: ~16 ms).
inline constexpr double kRunnerLoopLagP90LimitS = 0.020;
// kvsim-vllm's step lateness p90 (HostLoad.sim_step_lateness_p90_s) in simulated seconds: one
// step in ten went out more than a simulated decode step late (the demo's TPOT: ~8 ms).
inline constexpr double kSimStepLatenessP90LimitS = 0.010;

// Each figure of `result` past its limit, e.g. "host CPU busy 97% (limit 90%)"; empty when none
// is (or none was measured: a real engine has no simulator lateness, an old result no
// host_load).
// A simulated run on the shared clock (HostLoad.sim_clock_stalls set) is judged
// by that alone: its simulated times come from the clock's turns, not from wall time, so a busy
// host only makes it take longer (its CPU, loop lag and step lateness stay in the result, as
// figures); a stall, a message the clock wrote off, is the one way the host changed a number.
std::vector<std::string> HostSaturationFindings(const v1::ScenarioResult& result);

// "<scenario id>: <findings, joined> during the replay; simulated latencies include the host's
// queueing" ("measured latencies" for a real engine; "... include how late the host answered"
// on the shared clock); "" when there are no findings.
std::string HostSaturationMessage(const v1::ScenarioResult& result);

}  // namespace kvbench::results
