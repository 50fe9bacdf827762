#pragma once

// Whether a tier comparison means anything (DESIGN.md, end of "Measurements"): a
// pure function of the scenarios, table-tested.

#include <vector>

#include "controller/results/scenario_run.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// Reason codes (ValidityReason.code), stable for programs.
inline constexpr char kParameterDiffers[] = "parameter_differs";
inline constexpr char kAchievedSessionsDiffer[] = "achieved_sessions_differ";
inline constexpr char kSessionsBelowRequested[] = "sessions_below_requested";
inline constexpr char kSessionsLost[] = "sessions_lost";
inline constexpr char kFailedSessions[] = "failed_sessions";
inline constexpr char kScenarioDidNotSucceed[] = "scenario_did_not_succeed";
inline constexpr char kNoBaseline[] = "no_gpu_baseline";
inline constexpr char kGpuKvCapacityDiffers[] = "gpu_kv_capacity_differs";
inline constexpr char kProcessFailed[] = "process_failed";
inline constexpr char kWorkDiffers[] = "work_differs";
inline constexpr char kL2StoreFailed[] = "l2_store_failed";
inline constexpr char kHostSaturated[] = "host_saturated";
// The tiers ran different releases of the engine, the cache server or the model.
inline constexpr char kMixedVersions[] = "mixed_versions";
// An NVME tier's L2 grew past its pool: that LMCache ignored the pool's eviction.
inline constexpr char kNvmePoolUnbounded[] = "nvme_pool_unbounded";
// NOT_EXERCISED reasons.
inline constexpr char kGpuNeverRanShort[] = "gpu_never_ran_short";
inline constexpr char kOffloadServedNothing[] = "offload_served_nothing";
inline constexpr char kExerciseUnknown[] = "exercise_not_shown";
// Note codes (Validity.notes): facts about the group that do not change the verdict.
// The evidence a VALID verdict rests on (GPU ran short; what each offload tier served).
inline constexpr char kOffloadExercised[] = "offload_exercised";
// Over 2+ replicas the offload tiers ran least_conn with a shared cache, the GPU tier sticky.
inline constexpr char kRoutingDiffers[] = "routing_differs";
// LMCache's event bus dropped metric events during a tier's replay: its LMCache counters are
// undercounted (TTFT, measured by the client, is not affected).
inline constexpr char kLmcacheEventsDropped[] = "lmcache_events_dropped";
// A tier's result carries the agent's nvme_reads_not_from_disk warning: its L2 hits came from the
// page cache rather than the disk.
inline constexpr char kNvmeReadsNotFromDisk[] = "nvme_reads_not_from_disk";

// The comparison group a scenario belongs to: its own, or "c<concurrency>" for a job submitted
// before groups existed.
std::string ComparisonGroupOf(const v1::Scenario& scenario);

// One Validity per comparison group (scenarios that differ only in tier; group = the scenario's
// comparison_group, or "c<concurrency>" when empty), ordered by concurrency (ties: first seen);
// runs within a group keep their input order and the first is the reference for "differs".
//
// INVALID when any check fails, each a named reason with one line naming the values
// (validity_checks.h):
//  - held fixed: model, build, engine, concurrency, ISL, OSL, num_rounds, replicas, tensor
//    parallel size (unset = the default 1) and dataset (code and path) identical across the
//    group (kParameterDiffers, one reason per parameter, e.g.
//    "osl differs: 64 (00-gpu-c8) vs 128 (01-cpu-ram-c8)");
//  - every scenario succeeded with a result (kScenarioDidNotSucceed, with its error or state),
//    achieved sessions identical (kAchievedSessionsDiffer, "GPU 16, CPU_RAM 12"), each
//    achieved = requested (kSessionsBelowRequested, with the dataset ceiling and the tiers);
//  - no tier lost sessions: incomplete, not started or truncated by ISL (kSessionsLost, "GPU,
//    CPU_RAM: 4 of 16 virtual users complete (12 truncated by ISL 2048); 3 of the dataset's 40
//    virtual users fit under ISL 2048"), no error sessions or failed requests (kFailedSessions);
//  - no supervised process died while a scenario ran (kProcessFailed, one reason per failure
//    naming the tier and the failure: a tier that lost a replica lost its prefix cache too);
//  - no L2 store failed (kL2StoreFailed, "NVME: 1,234 of 5,678 chunks failed to store into L2
//    ...": a full or failing pool disk makes the tier something else than the one configured);
//  - a GPU scenario as the baseline (kNoBaseline);
//  - the same GPU KV capacity in every tier that reports it, each tier's own replicas x
//    engine.num_gpu_blocks x engine.block_size (kGpuKvCapacityDiffers);
//  - the same work: every tier's output and prompt token totals (latency.*_tokens_total) within
//    kWorkTolerance of the GPU tier's (kWorkDiffers, naming each tier's total and its change);
//  - no scenario's host was its bottleneck (kHostSaturated, one reason per scenario naming each
//    figure past its limit: host_saturation.h, e.g. "02-nvme-c16: host CPU busy 97% (limit
//    90%) during the replay; simulated latencies include the host's queueing"). A figure that
//    was not measured is not checked. Checked last: the group's other reasons and notes (the
//    evidence of offload, or the not_exercised reason) stay, and the verdict becomes INVALID.
//
// Otherwise VALID only on evidence that offload was exercised (offload_evidence.h): the GPU tier
// ran short of KV cache (preemptions, KV usage full, or its own prefix cache served less than
// kGpuReuseAchievedShare of the reusable prompt tokens; the working set against capacity only when
// the reuse is unknown) AND at least one offload tier served prompt tokens (external-hit tokens).
// The evidence is a kOffloadExercised note. Else NOT_EXERCISED, one reason naming the evidence:
//  - kGpuNeverRanShort: the GPU tier achieved the reuse there was (any external hits of the
//    offload tiers are then prefixes computed elsewhere, e.g. on another replica);
//  - kOffloadServedNothing: the GPU tier ran short, but no offload tier served a token;
//  - kExerciseUnknown: nothing measured shows the GPU tier ran short.
// Notes, whatever the verdict: kRoutingDiffers (validity_notes.h), kLmcacheEventsDropped for each
// tier whose lmcache.dropped_events > 0, and kNvmeReadsNotFromDisk for each tier whose result has
// that warning (its message quoted).
// A group of one scenario gets no verdict (nothing is compared), nor does a group with a
// scenario not yet finished (results are not all in).
// Repeats (JobSpec.repeats): a group holding several repeats is judged per repeat (the
// scenarios of one Scenario.repeat, a complete comparison of its own) and takes the worst verdict
// (INVALID, then NOT_EXERCISED, then VALID); each reason and note starts "repeat <r>: ".
std::vector<v1::Validity> ComputeValidity(const std::vector<ScenarioRun>& runs);

}  // namespace kvbench::results
