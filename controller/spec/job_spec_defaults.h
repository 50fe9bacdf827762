#pragma once

#include "absl/time/time.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::spec {

// Defaults of a job spec, each next to what it means. ApplyJobSpecDefaults() writes them into the
// effective spec the controller stores and agents receive, so every reader sees the same values.

// vLLM replicas per scenario; one replica needs no load balancer.
inline constexpr int kDefaultReplicas = 1;
// GPUs per replica.
inline constexpr int kDefaultTensorParallelSize = 1;
// Scrape period of /metrics during the replay (DESIGN.md "Sampling").
inline constexpr double kDefaultSamplingPeriodSeconds = 15;
// Window of the rolling rate() over the samples (DESIGN.md "Sampling"): 300 s, and at least
// kDefaultRateWindowPeriods sampling periods (a longer period with the 300 s window would make
// an effective spec its own validator refuses).
inline constexpr double kDefaultRateWindowSeconds = 300;
inline constexpr double kDefaultRateWindowPeriods = 20;
// LMCache L1 pinned-CPU pool (CPU_RAM) and staging pool (NVME).
inline constexpr double kDefaultCpuPoolGb = 8;
// LMCache L2 disk pool of the NVME tier.
inline constexpr double kDefaultNvmePoolGb = 64;
// Runs of each (tier, concurrency) cell: one, as before repeats existed (its comparison then says
// that the run-to-run spread is unknown).
inline constexpr int kDefaultRepeats = 1;
// Seed of every pseudo-random choice, recorded so a run can be repeated.
inline constexpr uint64_t kDefaultSeed = 1;
// Routing of CPU_RAM and NVME over 2+ replicas: least_conn, the methodology's (the GPU tier is
// always sticky; agent/tiers RoutesSticky).
inline constexpr v1::OffloadRouting kDefaultOffloadRouting = v1::OFFLOAD_ROUTING_LEAST_CONN;
// The progress watchdog (progress_timeout_s): a real engine completes some request of a replay
// well within 5 minutes, however long its contexts; the simulator's minutes pass faster by its
// time scale; never below 30 s, room for a loaded test machine.
inline constexpr double kDefaultProgressTimeoutSeconds = 300;
inline constexpr double kMinDefaultProgressTimeoutSeconds = 30;
// The job's wall-clock bound (max_duration_s): a nightly sweep fits in a day.
inline constexpr double kDefaultMaxDurationSeconds = 86400;
// The generic dataset loader's minimum chunk length (DESIGN.md "Replay semantics").
inline constexpr int kMinChunkRounds = 5;

// progress_timeout_s when unset: kDefaultProgressTimeoutSeconds, scaled by sim_time_scale on the
// sim engine, at least kMinDefaultProgressTimeoutSeconds.
double DefaultProgressTimeoutSeconds(const v1::JobSpec& spec);

// Fills every unset defaulted field of `spec` in place.
void ApplyJobSpecDefaults(v1::JobSpec* spec);

}  // namespace kvbench::spec
