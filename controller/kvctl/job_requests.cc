#include "controller/kvctl/job_requests.h"

#include <filesystem>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/scenario/request_chunks.h"
#include "common/lifecycle/lifecycle.h"
#include "common/status/status_macros.h"
#include "controller/client/local_job_files.h"
#include "controller/kvctl/job_argument.h"

namespace kvbench::kvctl {
namespace {

// The name of a scenario's request records in its folder (agent/work_dir_layout.h's, as kvctl
// run's embedded agent writes them).
constexpr char kRequestsFileName[] = "requests.jsonl";

absl::Status ReadLocalRows(const std::string& dir, regression::JobRequests* job) {
  KV_ASSIGN_OR_RETURN(std::string folder, client::LocalJobFolder(dir));
  for (const v1::ScenarioStatus& status : job->job.scenarios()) {
    if (!SucceededWithResult(status)) continue;
    const std::string id = status.scenario().scenario_id();
    const std::string path = (std::filesystem::path(folder) / id / kRequestsFileName).string();
    absl::StatusOr<std::vector<runner::RequestRecord>> records = agent::ReadRequestRecords(path);
    if (!records.ok()) return records.status();
    std::vector<v1::RequestRow>& rows = job->rows[id];
    for (const runner::RequestRecord& record : *records) {
      rows.push_back(agent::ToRequestRow(record));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadControllerRows(client::ControllerClient& client, regression::JobRequests* job) {
  v1::ListRequestsRequest request;
  request.set_job_id(job->job.job_id());
  while (true) {
    KV_ASSIGN_OR_RETURN(v1::ListRequestsResponse page, client.ListRequests(request));
    for (const v1::ScenarioRequests& scenario : page.scenarios()) {
      std::vector<v1::RequestRow>& rows = job->rows[scenario.scenario_id()];
      rows.insert(rows.end(), scenario.records().rows().begin(), scenario.records().rows().end());
    }
    if (page.next_page_token().empty()) break;
    request.set_page_token(page.next_page_token());
  }
  for (const v1::ScenarioStatus& status : job->job.scenarios()) {
    if (SucceededWithResult(status) && job->rows.count(status.scenario().scenario_id()) == 0) {
      return absl::NotFoundError(absl::StrCat(
          "the controller has no request records of ", job->job.job_id(), "/",
          status.scenario().scenario_id(),
          " (older than request_retention_days, or run by an agent before kvbench kept them)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status FetchJobRows(const std::string& job_or_dir, const ConnectionFlags& connection,
                          const KvctlContext& context, regression::JobRequests* job) {
  std::error_code error;
  if (std::filesystem::is_directory(job_or_dir, error)) return ReadLocalRows(job_or_dir, job);
  KV_ASSIGN_OR_RETURN(std::unique_ptr<client::ControllerClient> controller,
                      ConnectController(connection, context));
  return ReadControllerRows(*controller, job);
}

absl::StatusOr<regression::JobRequests> FetchJobRequests(const std::string& job_or_dir,
                                                         const ConnectionFlags& connection,
                                                         const KvctlContext& context) {
  regression::JobRequests job;
  KV_ASSIGN_OR_RETURN(job.job, FetchJob(job_or_dir, connection, context));
  KV_RETURN_IF_ERROR(FetchJobRows(job_or_dir, connection, context, &job));
  return job;
}

}  // namespace kvbench::kvctl
