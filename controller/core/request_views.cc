#include "controller/core/request_views.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status/status_macros.h"

namespace kvbench::controller {
namespace {

// Chunks read per store call.
constexpr int kChunksPerRead = 16;

struct Cursor {
  size_t scenario = 0;
  int64_t after_first_index = -1;
};

absl::StatusOr<Cursor> ParseToken(const std::string& token) {
  Cursor cursor;
  if (token.empty()) return cursor;
  std::vector<std::string> parts = absl::StrSplit(token, ':');
  uint64_t scenario = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &scenario) ||
      !absl::SimpleAtoi(parts[1], &cursor.after_first_index)) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_token \"", token, "\" is not one ListRequests returned"));
  }
  cursor.scenario = scenario;
  return cursor;
}

}  // namespace

absl::StatusOr<v1::ListRequestsResponse> ListRequestViews(const JobTable& table, Store* store,
                                                          const v1::ListRequestsRequest& request) {
  const JobRecord* job = table.Find(request.job_id());
  if (job == nullptr) return absl::NotFoundError(absl::StrCat("no job ", request.job_id()));
  if (!request.scenario_id().empty() && std::none_of(job->scenarios.begin(), job->scenarios.end(),
                                                     [&request](const ScenarioRecord& scenario) {
                                                       return scenario.scenario.scenario_id() ==
                                                              request.scenario_id();
                                                     })) {
    return absl::NotFoundError(
        absl::StrCat("job ", job->job_id, " has no scenario ", request.scenario_id()));
  }
  const int page_rows = request.page_size() <= 0
                            ? kDefaultRequestPageRows
                            : std::min(request.page_size(), kMaxRequestPageRows);
  KV_ASSIGN_OR_RETURN(Cursor cursor, ParseToken(request.page_token()));
  v1::ListRequestsResponse response;
  int rows = 0;
  for (size_t i = cursor.scenario; i < job->scenarios.size(); ++i) {
    const ScenarioRecord& scenario = job->scenarios[i];
    const std::string& id = scenario.scenario.scenario_id();
    if (!request.scenario_id().empty() && id != request.scenario_id()) continue;
    int64_t after = i == cursor.scenario ? cursor.after_first_index : -1;
    v1::ScenarioRequests* entry = nullptr;
    while (true) {
      KV_ASSIGN_OR_RETURN(
          std::vector<v1::RequestRecords> chunks,
          store->Events().ListRequests(job->job_id, id, scenario.attempt, after, kChunksPerRead));
      for (v1::RequestRecords& chunk : chunks) {
        if (entry == nullptr) {
          entry = response.add_scenarios();
          entry->set_scenario_id(id);
          entry->set_agent_id(scenario.agent_id);
          entry->mutable_records()->set_first_index(chunk.first_index());
        }
        entry->mutable_records()->set_total(chunk.total());
        rows += chunk.rows_size();
        for (v1::RequestRow& row : *chunk.mutable_rows()) {
          *entry->mutable_records()->add_rows() = std::move(row);
        }
        after = chunk.first_index();
        if (rows >= page_rows) {
          response.set_next_page_token(absl::StrCat(i, ":", after));
          return response;
        }
      }
      if (static_cast<int>(chunks.size()) < kChunksPerRead) break;
    }
  }
  return response;
}

}  // namespace kvbench::controller
