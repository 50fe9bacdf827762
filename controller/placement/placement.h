#pragma once

// The scheduler (DESIGN.md "The flow of one job", step 2): a pure function from the queued
// scenarios and the controller's views of its agents to this round's placements. It keeps no
// state and sees no clock; the controller calls it whenever the queue or an agent changes and
// acts on the answer (sends the assignments, fails or reports what can never run).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvbench/v1/agent.pb.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::controller {

// Bytes in one "GB" of a job spec's pool sizes: LMCache's --l1-size-gb and max_capacity_gb are
// GiB, so cpu_pool_gb and nvme_pool_gb are compared with the agent's bytes as GiB.
inline constexpr double kBytesPerPoolGb = 1024.0 * 1024.0 * 1024.0;

// Profile names a scenario needs on its agent, by engine and build (the engine) and by tier (the
// cache server). They must agree with agent/tiers ChooseProfiles, which the controller cannot
// link (controller/ never depends on agent/).
inline constexpr char kSimVllmProfile[] = "sim-vllm";
inline constexpr char kVllmNvidiaProfile[] = "vllm-nvidia";
inline constexpr char kVllmAmdProfile[] = "vllm-amd";
inline constexpr char kSimLmcacheProfile[] = "sim-lmcache";
inline constexpr char kLmcacheCpuProfile[] = "lmcache-cpu";
inline constexpr char kLmcacheNvmeProfile[] = "lmcache-nvme";

// One scenario waiting for an agent.
struct QueuedScenario {
  std::string job_id;
  v1::Scenario scenario;
  // The job's effective spec (ApplyJobSpecDefaults applied: replicas, tensor_parallel_size,
  // cpu_pool_gb and nvme_pool_gb set). Not owned: it must outlive the Place() call. Never null.
  const v1::JobSpec* spec = nullptr;
  // The job's priority (normally spec->priority()): higher runs first.
  int32_t priority = 0;
  // The job's submission order, increasing: FIFO within a priority.
  int64_t submit_seq = 0;
};

// What a scenario asks of an agent, derived from its job and tier (pure).
struct ScenarioRequirements {
  // GPUs of `vendor`: replicas x tensor_parallel_size for VLLM; 0 for SIM (the simulators run on
  // the CPU).
  int32_t gpus = 0;
  int32_t replicas = 0;
  int32_t tensor_parallel_size = 0;
  v1::Vendor vendor = v1::VENDOR_UNSPECIFIED;  // the job's build; UNSPECIFIED when gpus == 0
  std::string engine_profile;                  // sim-vllm, vllm-nvidia or vllm-amd
  std::optional<std::string> cache_profile;    // CPU_RAM/NVME only: sim-lmcache, lmcache-cpu/nvme
  // CPU_RAM/NVME on a real engine: the cache server's pinned pool (cpu_pool_gb). 0 for SIM, whose
  // pools are bookkeeping and allocate no such memory.
  int64_t cpu_memory_bytes = 0;
  // NVME: the agent needs an NVMe cache dir (the simulator writes its scaled L2 files there too).
  bool nvme_path = false;
  // NVME on a real engine: free bytes for the L2 pool (nvme_pool_gb). 0 for SIM (scaled bytes).
  int64_t nvme_free_bytes = 0;
  // The scenario's tier: the agent's latest preflight may not FAIL for it (for its profiles).
  v1::Tier tier = v1::TIER_UNSPECIFIED;
};

// The requirements of `scenario` under `spec` (the effective spec). A VLLM spec without a build
// asks for GPUs of VENDOR_UNSPECIFIED, which no agent has: the validator rejects such specs first.
ScenarioRequirements RequirementsOf(const v1::JobSpec& spec, const v1::Scenario& scenario);

// Why `agent` cannot run a scenario with `req`, whether or not it is busy: one line per unmet
// requirement, in a fixed order (GPUs, engine profile, cache profile, CPU memory, NVMe path,
// NVMe free space, preflight: no check of the agent's latest preflight FAILs for the scenario's
// tier and profiles, agent_preflight.h). Empty when it fits.
std::vector<std::string> UnmetRequirements(const ScenarioRequirements& req,
                                           const v1::AgentCapabilities& agent);

// `scenario_id` of `job_id` goes to `agent_id` this round.
struct Placement {
  std::string job_id;
  std::string scenario_id;
  std::string agent_id;
};

// A scenario that no connected agent could run even when idle, and why: the requirements no
// connected agent meets, each with the best any agent offers, e.g.
// "needs 4 NVIDIA GPUs (2 replicas x TP 2); the largest agent has 2", or for the preflight each
// agent's failing checks ("needs a preflight that passes for NVME; node-1: nvme.block_device
// FAILs: nvme_cache_dir /x is on tmpfs ..."); or, when every requirement
// is met by some agent but never all by one, each agent's first unmet requirement.
struct Unplaceable {
  std::string job_id;
  std::string scenario_id;
  std::string reason;
};

struct PlacementRound {
  // In the order the scenarios were considered (priority, then FIFO).
  std::vector<Placement> placements;
  // In the same order. Empty when no agent is connected: nothing can be judged then, and every
  // scenario simply waits.
  std::vector<Unplaceable> unplaceable;
};

// True when every pair of `labels` is one of the agent's labels (placement.agent_labels).
bool HasLabels(const v1::AgentCapabilities& agent,
               const google::protobuf::Map<std::string, std::string>& labels);
// "gpu=h200,zone=eu" (sorted), or "no labels".
std::string LabelsText(const google::protobuf::Map<std::string, std::string>& labels);

// One scheduling round (pure, deterministic). Scenarios are considered highest `priority` first,
// then lowest `submit_seq`, then job_id, then the scenario's index within its job. Each takes
// the best-fitting idle agent left this round: connected, not busy (no running_scenario_id),
// not yet given a scenario this round, meeting every requirement; among those, the one with the
// fewest GPUs (big agents stay free for big scenarios), then one without an NVMe path (those stay
// free for NVME scenarios), then the smallest agent_id. A scenario
// that fits some connected agent but none idle stays queued (appears in neither list); one that
// fits no connected agent is Unplaceable. Disconnected agents are never placed on nor used to
// judge what could run. Agents are named by capabilities().agent_id; `spec` must be non-null.
PlacementRound Place(const std::vector<QueuedScenario>& queue,
                     const std::vector<v1::AgentView>& agents);

}  // namespace kvbench::controller
