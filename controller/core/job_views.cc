#include "controller/core/job_views.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log/logging.h"
#include "controller/core/job_capacity.h"
#include "controller/results/scenario_run.h"
#include "controller/results/validity.h"
#include "controller/spec/search_spec_validator.h"

namespace kvbench::controller {
namespace {

std::map<std::string, v1::ScenarioResult> StoredResults(const std::string& job_id, Store* store) {
  std::map<std::string, v1::ScenarioResult> results;
  absl::StatusOr<std::vector<StoredResult>> stored = store->Jobs().GetResults(job_id);
  if (!stored.ok()) {
    KV_LOG(WARNING) << "results unreadable job=" << job_id << " error=" << stored.status();
    return results;
  }
  for (StoredResult& result : *stored) results[result.scenario_id] = std::move(result.result);
  return results;
}

bool Matches(const JobRecord& job, const v1::ListJobsRequest& request) {
  if (request.states_size() > 0 && std::find(request.states().begin(), request.states().end(),
                                             job.state) == request.states().end()) {
    return false;
  }
  if (!absl::StartsWith(job.spec.name(), request.name_prefix())) return false;
  for (const auto& [key, value] : request.labels()) {
    auto label = job.spec.labels().find(key);
    if (label == job.spec.labels().end() || label->second != value) return false;
  }
  return true;
}

}  // namespace

v1::Job ToJobProto(const JobRecord& job, const JobTable& table, Store* store, bool with_results) {
  v1::Job proto;
  proto.set_job_id(job.job_id);
  *proto.mutable_spec() = job.spec;
  proto.set_state(job.state);
  proto.set_submit_unix_ms(absl::ToUnixMillis(job.submit_time));
  if (job.start_time != absl::InfinitePast()) {
    proto.set_start_unix_ms(absl::ToUnixMillis(job.start_time));
  }
  if (job.end_time != absl::InfinitePast()) proto.set_end_unix_ms(absl::ToUnixMillis(job.end_time));
  proto.set_error(job.error);
  std::map<std::string, v1::ScenarioResult> results;
  if (with_results) results = StoredResults(job.job_id, store);
  for (const ScenarioRecord& scenario : job.scenarios) {
    v1::ScenarioStatus* status = proto.add_scenarios();
    *status->mutable_scenario() = scenario.scenario;
    status->set_state(scenario.state);
    status->set_agent_id(scenario.agent_id);
    status->set_attempt(scenario.attempt);
    status->set_error(scenario.reason);
    const std::string& id = scenario.scenario.scenario_id();
    if (auto result = results.find(id); result != results.end()) {
      *status->mutable_result() = result->second;
    }
    if (const v1::Progress* progress = table.Progress(job.job_id, id); progress != nullptr) {
      *status->mutable_progress() = *progress;
    }
  }
  if (with_results) {
    // One read of the results serves the verdicts and the capacity search.
    const std::vector<results::ScenarioRun> runs = results::RunsOfJob(proto);
    for (v1::Validity& validity : results::ComputeValidity(runs)) {
      *proto.add_validity() = std::move(validity);
    }
    if (spec::HasCapacitySearch(job.spec)) {
      *proto.mutable_capacity() = EvaluateJobCapacity(job, runs, store).report;
    }
  }
  return proto;
}

absl::StatusOr<v1::ListJobsResponse> ListJobViews(const JobTable& table, Store* store,
                                                  const v1::ListJobsRequest& request) {
  if (request.page_size() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size ", request.page_size(), " is negative"));
  }
  const int page_size = request.page_size() == 0 ? 50 : std::min(request.page_size(), 1000);
  const std::vector<std::string>& order = table.submit_order();
  int64_t below = static_cast<int64_t>(order.size());
  if (!request.page_token().empty() && (!absl::SimpleAtoi(request.page_token(), &below) ||
                                        below < 0 || below > static_cast<int64_t>(order.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_token \"", request.page_token(), "\" is not one ListJobs returned"));
  }
  v1::ListJobsResponse response;
  for (int64_t i = below - 1; i >= 0; --i) {
    const JobRecord& job = *table.Find(order[i]);
    if (!Matches(job, request)) continue;
    if (response.jobs_size() == page_size) {
      response.set_next_page_token(absl::StrCat(i + 1));
      break;
    }
    *response.add_jobs() = ToJobProto(job, table, store, /*with_results=*/false);
  }
  return response;
}

}  // namespace kvbench::controller
