#include "agent/scenario/scenario_result_builder.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/datasets/dataset_loader.h"
#include "agent/results/counted_prompts.h"
#include "agent/results/runner_lag.h"
#include "agent/results/same_user_reuse.h"
#include "agent/results/scenario_metrics.h"
#include "agent/results/session_plan_json.h"
#include "agent/results/simulated_time.h"
#include "agent/results/working_set.h"
#include "agent/runner/request_record.h"
#include "agent/runner/runner_options.h"
#include "agent/scenario/request_chunks.h"
#include "common/json/validated_json.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {
namespace {

// kvsim-vllm's --sim-time-scale when the spec sets none (agent/sim/vllm/vllm_flags.h): real time.
constexpr double kDefaultSimTimeScale = 1.0;

absl::StatusOr<std::vector<results::CountedPrompt>> ReadPrompts(const std::string& path) {
  std::vector<results::CountedPrompt> prompts;
  std::error_code error;
  if (path.empty() || !std::filesystem::exists(path, error)) return prompts;
  KV_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (line.empty()) continue;
    absl::StatusOr<results::CountedPrompt> prompt = results::ParsePromptLine(line);
    if (!prompt.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": ", prompt.status().message()));
    }
    prompts.push_back(*std::move(prompt));
  }
  return prompts;
}

// kv-runner's summary object; null when the file is missing or not JSON.
nlohmann::json ReadSummary(const std::string& path) {
  absl::StatusOr<std::string> text = ReadTextFile(path);
  if (!text.ok()) return nullptr;
  nlohmann::json summary = nlohmann::json::parse(*text, nullptr, false);
  return summary.is_object() ? summary : nlohmann::json(nullptr);
}

// Reuse opportunity as kv-runner's summary states it; absent or null keys leave it unset.
void CopyReuse(const nlohmann::json& summary, v1::LatencyMetrics* latency) {
  if (!summary.is_object()) return;
  if (summary.contains("reuse_same_user_pct") && summary["reuse_same_user_pct"].is_number()) {
    latency->set_reuse_same_user_pct(summary["reuse_same_user_pct"].get<double>());
  }
  if (summary.contains("reuse_any_user_pct") && summary["reuse_any_user_pct"].is_number()) {
    latency->set_reuse_any_user_pct(summary["reuse_any_user_pct"].get<double>());
  }
}

// The plan of a runner that wrote none: the first `sessions` users of the dataset.
absl::StatusOr<results::SessionPlan> DatasetPlan(const v1::JobSpec& job,
                                                 const v1::Scenario& scenario,
                                                 const std::string& dataset_path) {
  KV_ASSIGN_OR_RETURN(datasets::Dataset dataset,
                      datasets::LoadDataset(job.dataset().code(), dataset_path));
  KV_ASSIGN_OR_RETURN(
      std::vector<datasets::VirtualUser> users,
      datasets::ChunkIntoUsers(dataset, job.num_rounds(), runner::kDefaultMinChunkRounds));
  results::SessionPlan plan;
  plan.requested = scenario.sessions() > 0 ? scenario.sessions() : scenario.concurrency();
  plan.dataset_ceiling = static_cast<int>(users.size());
  for (size_t i = 0; i < std::min<size_t>(users.size(), static_cast<size_t>(plan.requested)); ++i) {
    plan.planned_users.push_back(
        {users[i].user_id, static_cast<int>(users[i].rounds.size()), users[i].session_id});
  }
  return plan;
}

}  // namespace

double SimTimeScale(const v1::JobSpec& job) {
  return job.engine_overrides().has_sim_time_scale() ? job.engine_overrides().sim_time_scale()
                                                     : kDefaultSimTimeScale;
}

absl::StatusOr<v1::ScenarioResult> BuildScenarioResult(const v1::JobSpec& job,
                                                       const v1::Scenario& scenario,
                                                       const std::string& dataset_path,
                                                       const std::string& requests_jsonl,
                                                       const std::string& summary_json,
                                                       const std::string& prompts_jsonl) {
  KV_ASSIGN_OR_RETURN(std::vector<runner::RequestRecord> records,
                      ReadRequestRecords(requests_jsonl));
  KV_ASSIGN_OR_RETURN(std::vector<results::CountedPrompt> prompts, ReadPrompts(prompts_jsonl));
  const nlohmann::json summary = ReadSummary(summary_json);
  absl::StatusOr<std::optional<results::SessionPlan>> runner_plan =
      results::ParseSessionPlan(summary);
  if (!runner_plan.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(summary_json, ": ", runner_plan.status().message()));
  }
  results::SessionPlan plan;
  if (runner_plan->has_value()) {
    plan = **runner_plan;
  } else {
    KV_ASSIGN_OR_RETURN(plan, DatasetPlan(job, scenario, dataset_path));
  }
  v1::ScenarioResult result;
  result.set_scenario_id(scenario.scenario_id());
  result.set_tier(scenario.tier());
  result.set_concurrency(scenario.concurrency());
  *result.mutable_latency() = results::ComputeLatencyMetrics(records);
  CopyReuse(summary, result.mutable_latency());
  // A simulated engine: the latency also in simulated seconds (what the calibrated H200 would
  // take), which is what people read; `latency` keeps what was observed.
  if (job.engine() == v1::SIM) {
    result.set_sim_time_scale(SimTimeScale(job));
    *result.mutable_simulated_latency() =
        results::ToSimulatedTime(result.latency(), result.sim_time_scale());
  }
  *result.mutable_host_load() = results::ComputeRunnerLag(records);
  *result.mutable_sessions() = results::ComputeSessionCounts(records, plan);
  if (!records.empty()) {
    result.set_peak_concurrent_tokens(results::PeakWorkingSetTokens(records, prompts));
  }
  if (std::optional<results::SameUserReuse> reuse =
          results::ComputeSameUserReuse(records, prompts)) {
    result.mutable_latency()->set_same_user_reusable_tokens(reuse->reusable_tokens);
    if (reuse->cached_tokens) {
      result.mutable_latency()->set_same_user_reusable_cached_tokens(*reuse->cached_tokens);
    }
  }
  return result;
}

}  // namespace kvbench::agent
