#pragma once

// The host's CPU counters as a samples.jsonl line, so that the result's
// telemetry.cpu_utilization_pct_mean (derived_metrics.h CpuUtilization between the "before" and
// "after" readings) can be recomputed from the raw files. Pure.

#include <string>

#include "agent/telemetry/proc_readings.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::sampler {

// The Sample's source.
inline constexpr char kHostSource[] = "host";

// A Sample of source "host" with the eight /proc/stat "cpu" fields in USER_HZ ticks, keyed
// "cpu_user_ticks", "cpu_nice_ticks", "cpu_system_ticks", "cpu_idle_ticks", "cpu_iowait_ticks",
// "cpu_irq_ticks", "cpu_softirq_ticks", "cpu_steal_ticks".
v1::Sample HostCpuSample(const std::string& kind, double t_s, const telemetry::CpuTimes& cpu);

}  // namespace kvbench::sampler
