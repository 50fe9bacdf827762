#pragma once

// The report's "Tier comparison" section: per concurrency, each metric of every tier
// and each offload tier's delta against the GPU tier with its 95% interval, as `kvctl compare`
// prints it ("no clear difference [..]" when the interval holds 0). Pure.

#include <string>
#include <vector>

#include "controller/results/comparison.h"

namespace kvbench::report {

std::string ComparisonSection(const std::vector<results::ComparisonGroup>& groups);

}  // namespace kvbench::report
