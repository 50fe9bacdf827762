#include "controller/kvctl/export/llmd_report.h"

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/kvctl/export/llmd_fields.h"
#include "controller/kvctl/export/llmd_observability.h"
#include "controller/kvctl/export/llmd_scenario.h"

namespace kvbench::kvctl {
namespace {

// run: uid per attempt of the scenario, eid the job; the scenario's start and end where
// result.json has them (results of agents before replay_start_unix_ms have no start_unix_ms in
// a kvctl run folder's result.json, only in the controller's copy).
nlohmann::ordered_json LlmdRun(const v1::Job& job, const v1::ScenarioStatus& status) {
  const v1::Scenario& scenario = status.scenario();
  const v1::ScenarioResult& result = status.result();
  nlohmann::ordered_json run;
  run["uid"] =
      absl::StrCat(job.job_id(), "/", scenario.scenario_id(), "/attempt-", status.attempt());
  run["eid"] = job.job_id();
  nlohmann::ordered_json time = nlohmann::ordered_json::object();
  if (result.start_unix_ms() > 0) time["start"] = LlmdTimestamp(result.start_unix_ms());
  if (result.end_unix_ms() > 0) time["end"] = LlmdTimestamp(result.end_unix_ms());
  if (result.start_unix_ms() > 0 && result.end_unix_ms() >= result.start_unix_ms()) {
    time["duration"] = absl::StrFormat(
        "PT%.3fS", static_cast<double>(result.end_unix_ms() - result.start_unix_ms()) / 1000.0);
  }
  if (!time.empty()) run["time"] = std::move(time);
  run["description"] =
      absl::StrCat("kvbench job ", job.job_id(), " (", job.spec().name(), "): scenario ",
                   scenario.scenario_id(), ", tier ", v1::Tier_Name(scenario.tier()),
                   ", concurrency ", scenario.concurrency(), ", repeat ", scenario.repeat());
  // The spec's labels, as the submitter set them, "key=value" by key.
  const std::map<std::string, std::string> labels(job.spec().labels().begin(),
                                                  job.spec().labels().end());
  std::vector<std::string> keywords;
  for (const auto& [key, value] : labels) keywords.push_back(absl::StrCat(key, "=", value));
  if (!keywords.empty()) run["keywords"] = keywords;
  return run;
}

nlohmann::ordered_json LlmdLatencyStatistics(const v1::LatencyMetrics& latency) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (latency.has_ttft_mean_s()) {
    nlohmann::ordered_json ttft = LlmdStatistics(kLlmdUnitSeconds, latency.ttft_mean_s());
    if (latency.has_ttft_p50_s()) ttft["p50"] = latency.ttft_p50_s();
    if (latency.has_ttft_p90_s()) ttft["p90"] = latency.ttft_p90_s();
    if (latency.has_ttft_p95_s()) ttft["p95"] = latency.ttft_p95_s();
    if (latency.has_ttft_p99_s()) ttft["p99"] = latency.ttft_p99_s();
    out["time_to_first_token"] = std::move(ttft);
  }
  // kvbench's TPOT: per request (end - first token) / (output tokens - 1), over requests with
  // at least 2 output tokens, averaged: the schema's TPOT ("excluding first").
  if (latency.has_tpot_mean_s()) {
    out["time_per_output_token"] = LlmdStatistics(kLlmdUnitSecondsPerToken, latency.tpot_mean_s());
  }
  return out;
}

nlohmann::ordered_json LlmdThroughput(const v1::LatencyMetrics& latency) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (latency.has_input_tokens_per_s()) {
    out["input_token_rate"] =
        LlmdStatistics(kLlmdUnitTokensPerSecond, latency.input_tokens_per_s());
  }
  if (latency.has_output_tokens_per_s()) {
    out["output_token_rate"] =
        LlmdStatistics(kLlmdUnitTokensPerSecond, latency.output_tokens_per_s());
  }
  if (latency.has_input_tokens_per_s() && latency.has_output_tokens_per_s()) {
    out["total_token_rate"] = LlmdStatistics(
        kLlmdUnitTokensPerSecond, latency.input_tokens_per_s() + latency.output_tokens_per_s());
  }
  if (latency.has_requests_per_s()) {
    out["request_rate"] = LlmdStatistics(kLlmdUnitQueriesPerSecond, latency.requests_per_s());
  }
  return out;
}

// requests: total = completed + failed (what was sent and answered either way); the lengths are
// result.json's token totals over the completed requests.
nlohmann::ordered_json LlmdRequests(const v1::ScenarioResult& result) {
  const v1::LatencyMetrics& latency = LlmdLatency(result);
  const int64_t completed = latency.requests_completed();
  const int64_t failed = result.sessions().failed_requests();
  nlohmann::ordered_json requests;
  requests["total"] = completed + failed;
  requests["failures"] = failed;
  if (completed > 0) {
    requests["input_length"] =
        LlmdStatistics(kLlmdUnitCount, static_cast<double>(latency.prompt_tokens_total()) /
                                           static_cast<double>(completed));
    requests["output_length"] =
        LlmdStatistics(kLlmdUnitCount, static_cast<double>(latency.output_tokens_total()) /
                                           static_cast<double>(completed));
  }
  return requests;
}

// Virtual users are the schema's sessions: complete ones succeeded, error ones failed; events
// are requests.
nlohmann::ordered_json LlmdSessions(const v1::ScenarioResult& result) {
  const v1::SessionCounts& counts = result.sessions();
  const int64_t completed = LlmdLatency(result).requests_completed();
  nlohmann::ordered_json sessions;
  sessions["total"] = counts.total();
  sessions["succeeded"] = counts.complete();
  sessions["failed"] = counts.error();
  sessions["total_events"] = completed + counts.failed_requests();
  sessions["total_events_completed"] = completed;
  return sessions;
}

}  // namespace

absl::StatusOr<nlohmann::ordered_json> LlmdBenchmarkReport(const v1::Job& job,
                                                           const v1::ScenarioStatus& status) {
  if (!status.has_result()) {
    return absl::FailedPreconditionError(absl::StrCat("scenario ", status.scenario().scenario_id(),
                                                      " has no result (",
                                                      v1::ScenarioState_Name(status.state()), ")"));
  }
  const v1::ScenarioResult& result = status.result();
  nlohmann::ordered_json report;
  report["version"] = kLlmdReportVersion;
  report["run"] = LlmdRun(job, status);
  report["scenario"] = LlmdScenario(job, status);
  nlohmann::ordered_json& aggregate = report["results"]["request_performance"]["aggregate"];
  aggregate["requests"] = LlmdRequests(result);
  aggregate["latency"] = LlmdLatencyStatistics(LlmdLatency(result));
  aggregate["throughput"] = LlmdThroughput(LlmdLatency(result));
  // No request_performance.time_series: requests.jsonl's times count from kv-runner's own start
  // (after SIGUSR1; simulated time under --sim-clock), not from replay_start_unix_ms, and the
  // report would date its windows wrongly (docs/kvctl.md).
  report["results"]["session_performance"]["sessions"] = LlmdSessions(result);
  report["results"]["observability"] = LlmdObservability(job, status);
  return report;
}

}  // namespace kvbench::kvctl
