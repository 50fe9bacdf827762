#pragma once

#include "kvbench/v1/result.pb.h"

namespace kvbench::agent::results {

// A simulated engine (kvsim-vllm with --sim-time-scale) runs `time_scale` real seconds per
// simulated second, the simulated second being what the calibrated H200 would take
// (reference/sim-calibration.md). ToSimulatedTime states `observed` in simulated time: every
// duration (TTFT mean and percentiles, per-round TTFTs, TPOT, the measured window, the dispatch
// lag) ÷ time_scale, every per-second rate (requests, input and output tokens) × time_scale;
// counts and percentages (requests completed, per-round counts, TTFT degradation, reuse) are
// unitless and stay. Nulls stay null. Pure; time_scale must be > 0 (the spec validator's rule;
// a broken invariant aborts).
v1::LatencyMetrics ToSimulatedTime(const v1::LatencyMetrics& observed, double time_scale);

}  // namespace kvbench::agent::results
