#pragma once

// The report's top section for a capacity search: the headline, the offload
// note, and each tier's probes with their SLO metrics' 95% intervals against the targets. Pure.

#include <string>

#include "kvbench/v1/capacity.pb.h"

namespace kvbench::report {

// "" for a job without a search.
std::string CapacitySection(const v1::CapacityReport& report);

}  // namespace kvbench::report
