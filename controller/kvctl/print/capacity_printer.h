#pragma once

// A capacity search's answer as kvctl shows it: the headline first, then per
// tier its capacity with the interval it is known to, and every probe with its SLO metrics'
// 95% intervals against their targets.

#include <nlohmann/json.hpp>
#include <ostream>

#include "kvbench/v1/capacity.pb.h"

namespace kvbench::kvctl {

// The headline, the offload note when there is one, and the probes' table. Prints nothing for
// a job without a search (an empty report).
void PrintCapacity(const v1::CapacityReport& report, std::ostream& out);

// The report as JSON (proto field names); null for a job without a search.
nlohmann::ordered_json CapacityJson(const v1::CapacityReport& report);

// Whether the job searched for capacity (the report has tiers).
inline bool HasCapacity(const v1::CapacityReport& report) { return report.tiers_size() > 0; }

}  // namespace kvbench::kvctl
