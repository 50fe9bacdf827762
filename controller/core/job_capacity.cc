#include "controller/core/job_capacity.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/log/logging.h"
#include "controller/spec/search_spec_validator.h"

namespace kvbench::controller {
namespace {

// Chunks read per ListRequests call.
constexpr int kRowChunksPerRead = 64;

// The succeeded attempt's request rows; empty (logged) when they cannot be read.
std::vector<v1::RequestRow> StoredRows(const JobRecord& job, const ScenarioRecord& scenario,
                                       Store* store) {
  std::vector<v1::RequestRow> rows;
  int64_t after = -1;
  for (;;) {
    absl::StatusOr<std::vector<v1::RequestRecords>> chunks = store->Events().ListRequests(
        job.job_id, scenario.scenario.scenario_id(), scenario.attempt, after, kRowChunksPerRead);
    if (!chunks.ok()) {
      KV_LOG(WARNING) << "request rows unreadable job=" << job.job_id
                      << " scenario=" << scenario.scenario.scenario_id()
                      << " error=" << chunks.status();
      return {};
    }
    for (v1::RequestRecords& chunk : *chunks) {
      after = chunk.first_index();
      for (v1::RequestRow& row : *chunk.mutable_rows()) rows.push_back(std::move(row));
    }
    if (static_cast<int>(chunks->size()) < kRowChunksPerRead) return rows;
  }
}

}  // namespace

std::vector<results::ScenarioRun> StoredRuns(const JobRecord& job, Store* store) {
  std::map<std::string, v1::ScenarioResult> stored_results;
  if (absl::StatusOr<std::vector<StoredResult>> stored = store->Jobs().GetResults(job.job_id);
      stored.ok()) {
    for (StoredResult& result : *stored) {
      stored_results[result.scenario_id] = std::move(result.result);
    }
  } else {
    KV_LOG(WARNING) << "results unreadable job=" << job.job_id << " error=" << stored.status();
  }
  std::vector<results::ScenarioRun> runs;
  for (const ScenarioRecord& scenario : job.scenarios) {
    results::ScenarioRun& run = runs.emplace_back();
    run.spec = job.spec;
    run.scenario = scenario.scenario;
    run.state = scenario.state;
    run.error = scenario.reason;
    if (scenario.state != v1::SCENARIO_STATE_SUCCEEDED) continue;
    auto result = stored_results.find(scenario.scenario.scenario_id());
    if (result != stored_results.end()) run.result = std::move(result->second);
  }
  return runs;
}

search::CapacityEvaluation EvaluateJobCapacity(const JobRecord& job,
                                               const std::vector<results::ScenarioRun>& runs,
                                               Store* store) {
  if (!spec::HasCapacitySearch(job.spec)) return {};
  std::map<std::string, std::vector<v1::RequestRow>> rows;
  for (const ScenarioRecord& scenario : job.scenarios) {
    if (scenario.state != v1::SCENARIO_STATE_SUCCEEDED) continue;
    std::vector<v1::RequestRow> scenario_rows = StoredRows(job, scenario, store);
    if (!scenario_rows.empty()) rows[scenario.scenario.scenario_id()] = std::move(scenario_rows);
  }
  return search::EvaluateCapacity(job.spec, runs, rows);
}

}  // namespace kvbench::controller
