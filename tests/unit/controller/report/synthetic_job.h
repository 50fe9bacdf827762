#pragma once

// A finished job for the report tests: GPU, CPU_RAM and NVME at concurrency 2 and 8, every
// result with latency (and three rounds), sessions, the three series, and LMCache
// (CPU_RAM, NVME) and disk (NVME) figures; labels and a name that need HTML escaping.

#include <vector>

#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::testing {

inline constexpr char kSyntheticJobId[] = "job-report-1";

v1::Job SyntheticJob();

// One VALID group (c2) and one INVALID group (c8) with a reason.
std::vector<v1::Validity> SyntheticValidity();

}  // namespace kvbench::testing
