#pragma once

#include <string>

namespace kvbench::testing {

// The sum of every sample of `name` (all label sets) in a Prometheus text exposition; 0 when the
// name is absent. For tests that compare counters before and after; the product parser is
// separate (common/, issue #6).
double SumOfSamples(const std::string& text, const std::string& name);

}  // namespace kvbench::testing
