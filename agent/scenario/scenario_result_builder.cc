#include "agent/scenario/scenario_result_builder.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/datasets/dataset_loader.h"
#include "agent/results/scenario_metrics.h"
#include "agent/results/simulated_time.h"
#include "agent/results/working_set.h"
#include "agent/runner/request_record.h"
#include "agent/runner/runner_options.h"
#include "common/json/validated_json.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {
namespace {

// kvsim-vllm's --sim-time-scale when the spec sets none (agent/sim/vllm/vllm_flags.h): real time.
constexpr double kDefaultSimTimeScale = 1.0;

absl::StatusOr<std::vector<runner::RequestRecord>> ReadRecords(const std::string& path) {
  KV_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  std::vector<runner::RequestRecord> records;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (line.empty()) continue;
    absl::StatusOr<runner::RequestRecord> record = runner::ParseJsonLine(line);
    if (!record.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": ", record.status().message()));
    }
    records.push_back(*std::move(record));
  }
  return records;
}

// Reuse opportunity as kv-runner's summary states it; absent or null keys leave it unset.
void CopyReuse(const std::string& summary_path, v1::LatencyMetrics* latency) {
  absl::StatusOr<std::string> text = ReadTextFile(summary_path);
  if (!text.ok()) return;
  nlohmann::json summary = nlohmann::json::parse(*text, nullptr, false);
  if (!summary.is_object()) return;
  if (summary.contains("reuse_same_user_pct") && summary["reuse_same_user_pct"].is_number()) {
    latency->set_reuse_same_user_pct(summary["reuse_same_user_pct"].get<double>());
  }
  if (summary.contains("reuse_any_user_pct") && summary["reuse_any_user_pct"].is_number()) {
    latency->set_reuse_any_user_pct(summary["reuse_any_user_pct"].get<double>());
  }
}

}  // namespace

absl::StatusOr<v1::ScenarioResult> BuildScenarioResult(const v1::JobSpec& job,
                                                       const v1::Scenario& scenario,
                                                       const std::string& dataset_path,
                                                       const std::string& requests_jsonl,
                                                       const std::string& summary_json) {
  KV_ASSIGN_OR_RETURN(std::vector<runner::RequestRecord> records, ReadRecords(requests_jsonl));
  KV_ASSIGN_OR_RETURN(datasets::Dataset dataset,
                      datasets::LoadDataset(job.dataset().code(), dataset_path));
  KV_ASSIGN_OR_RETURN(
      std::vector<datasets::VirtualUser> users,
      datasets::ChunkIntoUsers(dataset, job.num_rounds(), runner::kDefaultMinChunkRounds));
  const int requested = scenario.sessions() > 0 ? scenario.sessions() : scenario.concurrency();
  const int ceiling = static_cast<int>(users.size());
  std::vector<results::PlannedUser> planned;
  for (size_t i = 0; i < std::min<size_t>(users.size(), static_cast<size_t>(requested)); ++i) {
    planned.push_back({users[i].user_id, static_cast<int>(users[i].rounds.size())});
  }
  v1::ScenarioResult result;
  result.set_scenario_id(scenario.scenario_id());
  result.set_tier(scenario.tier());
  result.set_concurrency(scenario.concurrency());
  *result.mutable_latency() = results::ComputeLatencyMetrics(records);
  CopyReuse(summary_json, result.mutable_latency());
  // A simulated engine: the latency also in simulated seconds (what the calibrated H200 would
  // take), which is what people read; `latency` keeps what was observed.
  if (job.engine() == v1::SIM) {
    result.set_sim_time_scale(job.engine_overrides().has_sim_time_scale()
                                  ? job.engine_overrides().sim_time_scale()
                                  : kDefaultSimTimeScale);
    *result.mutable_simulated_latency() =
        results::ToSimulatedTime(result.latency(), result.sim_time_scale());
  }
  *result.mutable_sessions() = results::ComputeSessionCounts(records, requested, ceiling, planned);
  if (!records.empty()) result.set_peak_concurrent_tokens(results::PeakWorkingSetTokens(records));
  return result;
}

}  // namespace kvbench::agent
