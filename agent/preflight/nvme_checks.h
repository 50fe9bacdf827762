#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/preflight/preflight_probes.h"
#include "agent/tiers/profile_set.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::agent::preflight {

// A job's NVME pool when its spec does not say: job.proto's default nvme_pool_gb (the
// controller's kDefaultNvmePoolGb, controller/spec/job_spec_defaults.h, which agent/ cannot
// link). GiB, as the scheduler counts pools.
inline constexpr double kDefaultNvmePoolGb = 64;
inline constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
// The smallest write O_DIRECT is tried with (a file system may ask for its block size).
inline constexpr int64_t kDirectWriteBytes = 4096;

// The nvme.* checks of `nvme_cache_dir` (SKIP, all of them, when it is ""): nvme.dir,
// nvme.block_device, nvme.o_direct, nvme.free_space, nvme.page_cache. Symlinks are followed (a
// link to /dev/shm is on tmpfs); a dir that does not exist yet is judged by its nearest existing
// parent, where the agent creates it at start. A FAIL keeps NVME off the node (free space: only
// the scenarios of real cache servers, whose pools take their full size; the simulator writes
// 1/1000 of it). The pool is `spec`'s nvme_pool_gb, else kDefaultNvmePoolGb (then too little
// room is a WARN: each job sets its own, and the controller places by the free space heartbeats
// report).
std::vector<v1::PreflightCheck> CheckNvme(const std::string& nvme_cache_dir,
                                          const tiers::ProfileSet& profiles,
                                          const std::optional<v1::JobSpec>& spec,
                                          PreflightProbes& probes);

}  // namespace kvbench::agent::preflight
