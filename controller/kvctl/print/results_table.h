#pragma once

// The tier comparison table of a job's results: what `kvctl run` prints at its end and what
// `kvctl results` prints for a job of the controller, from the same code, so the same results
// print the same numbers. One row per scenario, grouped by concurrency.

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/event.pb.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::kvctl {

// One scenario's row: its result when it has one, else how it ended (or where it is).
struct ResultsRow {
  v1::Scenario scenario;
  bool has_result = false;
  v1::ScenarioResult result;  // when has_result
  // STATUS column: "ok", "ok (process died)", "ok (3 sessions lost)" (incomplete, not started,
  // truncated by ISL or error: SESSIONS is complete/requested), "failed", "cancelled", or the
  // state of an unfinished scenario ("running", "pending", ...).
  std::string outcome;
};

// From an embedded run's outcome (`kvctl run`): OK has a result; CANCELLED is "cancelled",
// anything else "failed".
ResultsRow ResultsRowFromOutcome(const v1::Scenario& scenario, const absl::Status& status,
                                 const v1::ScenarioResult& result);
// From the controller's view of a scenario (`kvctl results`): SUCCEEDED has a result; FAILED and
// LOST are "failed".
ResultsRow ResultsRowFromScenarioStatus(const v1::ScenarioStatus& status);

// "times in simulated seconds (...)" when a row's result is simulated (results/
// simulated_time_display.h), else "".
std::string SimulatedTimeNote(const std::vector<ResultsRow>& rows);
// The column names; TTFT and REQ/S prefixed "SIM_" when the rows are simulated: their cells are
// then in simulated time (simulated_latency), as the note says. KV_MEAN/MAX% is vLLM's KV cache
// usage over the in-replay scrapes (mean/max, %); OFFLOAD_SERVED_TOK what offload served (vLLM's
// external prefix-cache hit tokens, with their % of the prompt tokens when known);
// LMC_LOOKUP_HIT% LMCache's lookup-based hit rate (lookup hit / requested tokens).
std::vector<std::string> ResultsTableHeaders(const std::vector<ResultsRow>& rows);
// The table's cells, rows ordered by concurrency (stable; a FAN_OUT_EACH job's by agent first, each
// row led by its AGENT); "-" where a value is null or the
// scenario has no result. The last column, WARNINGS, lists the result's warning codes
// (ScenarioResult.warnings, e.g. cache_server_metrics_unavailable).
std::vector<std::vector<std::string>> ResultsTableCells(const std::vector<ResultsRow>& rows);

// "versions: vllm 0.33.0 (simulated) · lmcache 0.5.6 (simulated) · ..." over the rows' results
// (ScenarioResult.versions), a component whose tiers differ naming each version with
// its tiers; "" when no result recorded any.
std::string VersionsNote(const std::vector<ResultsRow>& rows);

// The table for people, after the simulated-time note when there is one, then VersionsNote.
void PrintResultsTable(const std::vector<ResultsRow>& rows, std::ostream& out);

// RFC 4180 CSV: a header line, then one line per row; cells with commas, quotes or newlines
// quoted. (Shared by kvctl's --output csv.)
void PrintCsv(const std::vector<std::string>& headers,
              const std::vector<std::vector<std::string>>& rows, std::ostream& out);

// Lowercase names kvctl shows: "succeeded" for JOB_STATE_SUCCEEDED, "running" for
// SCENARIO_STATE_RUNNING, "starting_replicas" for SCENARIO_PHASE_STARTING_REPLICAS.
std::string JobStateName(v1::JobState state);
std::string ScenarioStateName(v1::ScenarioState state);
std::string ScenarioPhaseName(v1::ScenarioPhase phase);

}  // namespace kvbench::kvctl
