#pragma once

// `kvctl export --format llmd-br-0.2.1`: a kvbench scenario as an llm-d Benchmark Report v0.2.1
// (llm-d/llm-d-benchmark llmdbenchmark/analysis/benchmark_report/, the JSON Schema carried in
// tests/data/llmd-benchmark-report/). One report per scenario that has a result (a scenario is
// one tier x concurrency x repeat); docs/kvctl.md maps every field to result.json.

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// The --format value, and the schema version the report declares.
inline constexpr char kLlmdReportFormat[] = "llmd-br-0.2.1";
inline constexpr char kLlmdReportVersion[] = "0.2.1";

// The report of `status`, one scenario of `job` (its spec, validity and capacity). Pure.
// FAILED_PRECONDITION when the scenario has no result (it did not succeed).
absl::StatusOr<nlohmann::ordered_json> LlmdBenchmarkReport(const v1::Job& job,
                                                           const v1::ScenarioStatus& status);

}  // namespace kvbench::kvctl
