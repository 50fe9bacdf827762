#pragma once

// Where a scenario's processes listen and which GPUs each replica gets (the wiring the tier
// renderer turns into command lines and a Caddyfile).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/tiers/tier_renderer.h"
#include "common/net/port_allocator.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::agent {

struct WiringRequest {
  int replicas = 1;
  int tensor_parallel_size = 1;
  bool cache_server = false;     // CPU_RAM / NVME: ZMQ, HTTP and Prometheus ports
  bool visible_devices = false;  // the engine profile pins GPUs (visible_devices_env)
  std::vector<int> gpus;         // this node's GPUs
};

// Free ports on loopback: the cache server on 127.0.0.1, replica i on 127.0.0.(2 + i) (distinct
// addresses, reference caddy.md), Caddy's front and admin ports with 2+ replicas; GPUs split
// over the replicas (tiers::SplitGpus) when the profile pins them. The NVMe dir is not set here.
absl::StatusOr<tiers::ScenarioWiring> AllocateWiring(PortAllocator& ports,
                                                     const WiringRequest& request);

// The file in a pool dir that names its owner: an agent crash leaves its pool behind (up to
// nvme_pool_gb each), and only the owner's next start may remove it.
inline constexpr char kNvmePoolOwnerFile[] = ".kvbench-pool-owner";

// Bytes per nvme_pool_gb / cpu_pool_gb unit: GiB, as LMCache's *_gb settings and the
// controller's scheduler (controller/placement/placement.h) count them.
inline constexpr double kBytesPerPoolGb = 1024.0 * 1024.0 * 1024.0;

// The NVME scenario's pool dir, <nvme_cache_dir>/<job>-<scenario>, emptied (created when absent)
// and marked as `owner`'s (kNvmePoolOwnerFile; the owner is the agent's run dir, unique per work
// dir). FAILED_PRECONDITION on a node without nvme_cache_dir, or when its file system has less
// than `pool_bytes` free once the dir is emptied (a pool that fills its disk fails its L2 stores),
// naming both figures; INTERNAL naming the dir when it cannot be wiped or marked.
absl::StatusOr<std::string> WipedNvmeDir(const std::string& nvme_cache_dir,
                                         const v1::Scenario& scenario, const std::string& owner,
                                         int64_t pool_bytes);

// Removes the pool dirs in `nvme_cache_dir` that `owner` marked (what a crashed run of the same
// owner left); others' and unmarked folders stay. Returns how many were removed.
int SweepNvmePools(const std::string& nvme_cache_dir, const std::string& owner);

}  // namespace kvbench::agent
