#pragma once

// Where a scenario's processes listen and which GPUs each replica gets (the wiring the tier
// renderer turns into command lines and a Caddyfile).

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

// The NVME scenario's pool dir, <nvme_cache_dir>/<job>-<scenario>, emptied (created when absent).
// FAILED_PRECONDITION on a node without nvme_cache_dir; INTERNAL naming the dir when it cannot be
// wiped.
absl::StatusOr<std::string> WipedNvmeDir(const std::string& nvme_cache_dir,
                                         const v1::Scenario& scenario);

}  // namespace kvbench::agent
