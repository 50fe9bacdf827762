#pragma once

// The report's first answer: per concurrency, whether the comparison is valid, each
// offload tier's TTFT p95 against GPU with its interval, and which tier wins — readable in a
// few seconds, before any chart. Pure.

#include <string>
#include <vector>

#include "controller/results/comparison.h"

namespace kvbench::report {

// Which tier wins a group on TTFT p95: an offload tier whose delta's interval lies wholly below
// 0 (the fastest of those), "GPU" when every offload tier's lies wholly above 0, else "no clear
// difference"; for a group that is not valid, why there is no answer.
std::string TtftP95Winner(const results::ComparisonGroup& group);

// The "At a glance" table; "" when no group has a GPU baseline.
std::string SummarySection(const std::vector<results::ComparisonGroup>& groups);

}  // namespace kvbench::report
