#pragma once

#include <string>

namespace kvbench::testing {

// The sum of every sample of `name` (all label sets) in a Prometheus text exposition; 0 when the
// name is absent. For tests that compare counters before and after; a thin wrapper over the
// product parser (common/prometheus/exposition.h), whose Sum tells absent from zero.
double SumOfSamples(const std::string& text, const std::string& name);

}  // namespace kvbench::testing
