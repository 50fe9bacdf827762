#pragma once

#include <string>
#include <vector>

#include "controller/regression/job_diff.h"
#include "controller/results/comparison.h"
#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::report {

// The job as one self-contained HTML file (inline SVG and CSS; no script, no network): its
// parameters and validity verdicts; TTFT vs concurrency per tier; TTFT per round per tier;
// hit rates and cache usage over time per tier (the result's series); throughput per tier;
// session counts; LMCache and disk figures of the offload tiers. Pure: same input, same bytes.
// With `diff` (kvctl diff --html, kvctl report --baseline): a section on the change against the
// baseline named `baseline_name`, right after the validity verdicts. With `comparison` (the
// job's tier comparison with its intervals, kvctl's JobComparison): its section right after the
// validity verdicts.
std::string RenderHtmlReport(const v1::Job& job, const std::vector<v1::Validity>& validity,
                             const regression::JobDiff* diff = nullptr,
                             const std::string& baseline_name = "",
                             const std::vector<results::ComparisonGroup>* comparison = nullptr);

}  // namespace kvbench::report
