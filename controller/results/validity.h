#pragma once

// Whether a tier comparison means anything (DESIGN.md, end of "Measurements"; issue #8): a pure
// function of the scenarios, table-tested.

#include <vector>

#include "controller/results/scenario_run.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// Reason codes (ValidityReason.code), stable for programs.
inline constexpr char kParameterDiffers[] = "parameter_differs";
inline constexpr char kAchievedSessionsDiffer[] = "achieved_sessions_differ";
inline constexpr char kSessionsBelowRequested[] = "sessions_below_requested";
inline constexpr char kFailedSessions[] = "failed_sessions";
inline constexpr char kScenarioDidNotSucceed[] = "scenario_did_not_succeed";
inline constexpr char kNoBaseline[] = "no_gpu_baseline";
inline constexpr char kWorkingSetFitsGpu[] = "working_set_fits_gpu";
inline constexpr char kGpuKvCapacityDiffers[] = "gpu_kv_capacity_differs";
inline constexpr char kProcessFailed[] = "process_failed";
// Note codes (Validity.notes): facts about the group that do not change the verdict.
// LMCache's event bus dropped metric events during a tier's replay: its LMCache counters are
// undercounted (TTFT, measured by the client, is not affected).
inline constexpr char kLmcacheEventsDropped[] = "lmcache_events_dropped";
// A tier's result carries the agent's nvme_reads_not_from_disk warning: its L2 hits came from the
// page cache rather than the disk.
inline constexpr char kNvmeReadsNotFromDisk[] = "nvme_reads_not_from_disk";

// One Validity per comparison group (scenarios that differ only in tier; group = the scenario's
// comparison_group, or "c<concurrency>" when empty), ordered by concurrency (ties: first seen);
// runs within a group keep their input order and the first is the reference for "differs".
// Checks, each failed one a named reason with one line naming the values:
//  - held fixed: model, build, engine, concurrency, ISL, OSL, num_rounds, replicas, tensor
//    parallel size (unset = the default 1) and dataset (code and path) identical across the
//    group (kParameterDiffers, one reason per parameter, e.g.
//    "osl differs: 64 (00-gpu-c8) vs 128 (01-cpu-ram-c8)");
//  - every scenario succeeded with a result (kScenarioDidNotSucceed, with its error or state),
//    achieved sessions identical (kAchievedSessionsDiffer, "GPU 16, CPU_RAM 12"), each
//    achieved = requested (kSessionsBelowRequested, with the dataset ceiling and the tiers), no
//    error sessions or failed requests (kFailedSessions, per tier);
//  - no supervised process died while a scenario ran (kProcessFailed, one reason per failure
//    naming the tier and the failure, e.g. "GPU: replica-1 killed by signal 9 (SIGKILL) during
//    the replay": a tier that lost a replica lost its share of the prefix cache too);
//  - a GPU scenario as the baseline (kNoBaseline);
//  - the same GPU KV capacity in every tier that reports it, each tier's own replicas x
//    engine.num_gpu_blocks x engine.block_size (kGpuKvCapacityDiffers, naming every tier's, e.g.
//    "GPU 2 replicas x 2,048 blocks x 16 tokens = 65,536 tokens, CPU_RAM 2 replicas x 1,024 ...").
//    vLLM's hybrid KV cache manager, left on for a sliding-window model in the GPU tier only,
//    gives that tier about twice the blocks (agent/tiers/tier_renderer.h).
// Any of those: VERDICT_INVALID. Otherwise VERDICT_VALID, unless offload was never shown to be
// needed: when no offload tier saw external prefix-cache hits (external_hit_rate > 0 proves the
// offload served requests) and either
//  - the GPU scenario's working set (result.peak_concurrent_tokens) fits in its KV capacity,
//    replicas x engine.num_gpu_blocks x engine.block_size (the sampler reports one replica's
//    num_gpu_blocks, not a sum), or
//  - that comparison cannot be made (a value not reported) and the GPU tier saw no preemptions,
// which is VERDICT_NOT_EXERCISED with kWorkingSetFitsGpu saying which case and the numbers.
// Notes, whatever the verdict: kLmcacheEventsDropped for each tier whose
// lmcache.dropped_events > 0 ("CPU_RAM: LMCache dropped 12 metric events ..."), and
// kNvmeReadsNotFromDisk for each tier whose result has that warning (its message quoted).
// A group of one scenario gets no verdict (nothing is compared), nor does a group with a
// scenario not yet finished (results are not all in).
std::vector<v1::Validity> ComputeValidity(const std::vector<ScenarioRun>& runs);

}  // namespace kvbench::results
