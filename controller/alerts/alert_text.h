#pragma once

// A regression alert in one line for people (the controller's log, kvctl status and alerts, the
// webhook body's summary), e.g. "nightly: TTFT p95 of gpu c2 @sim-a +12.3% [+5.1%, +19.0%]
// (81.2 -> 91.2 ms) against 3 run(s) since the last change point, job nightly-...".

#include <string>

#include "kvbench/v1/regression.pb.h"

namespace kvbench::controller {

std::string AlertSummary(const v1::RegressionAlert& alert);

// "pending", "delivered", "failed": how kvctl and /metrics name a delivery's state.
const char* DeliveryStateName(v1::DeliveryState state);

}  // namespace kvbench::controller
