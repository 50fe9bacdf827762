#include "controller/kvctl/request_export.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kvbench::kvctl {
namespace {

const std::vector<std::string>& Columns() {
  static const std::vector<std::string> columns = {
      "scenario_id",   "agent_id",      "user_id", "session_id", "round",         "scheduled_s",
      "sent_s",        "first_token_s", "end_s",   "ttft_s",     "prompt_tokens", "output_tokens",
      "cached_tokens", "http_status",   "error",   "attempts"};
  return columns;
}

nlohmann::ordered_json RowJson(const v1::ScenarioRequests& scenario, const v1::RequestRow& row) {
  nlohmann::ordered_json json;
  json["scenario_id"] = scenario.scenario_id();
  json["agent_id"] = scenario.agent_id();
  json["user_id"] = row.user_id();
  json["session_id"] = row.session_id();
  json["round"] = row.round();
  json["scheduled_s"] = row.scheduled_s();
  json["sent_s"] = row.sent_s();
  json["first_token_s"] =
      row.has_first_token_s() ? nlohmann::ordered_json(row.first_token_s()) : nullptr;
  json["end_s"] = row.end_s();
  json["ttft_s"] = row.has_ttft_s() ? nlohmann::ordered_json(row.ttft_s()) : nullptr;
  json["prompt_tokens"] = row.prompt_tokens();
  json["output_tokens"] = row.output_tokens();
  json["cached_tokens"] =
      row.has_cached_tokens() ? nlohmann::ordered_json(row.cached_tokens()) : nullptr;
  json["http_status"] = row.http_status();
  json["error"] = row.has_error() ? nlohmann::ordered_json(row.error()) : nullptr;
  json["attempts"] = row.attempts();
  return json;
}

// A CSV cell: numbers as JSON writes them (round-trip exact), null as empty, text quoted when it
// needs to be.
std::string Cell(const nlohmann::ordered_json& value) {
  if (value.is_null()) return "";
  if (!value.is_string()) return value.dump();
  const std::string text = value.get<std::string>();
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

absl::Status ExportRequests(client::ControllerClient& client, const std::string& job_id,
                            OutputFormat format, std::ostream& out, int64_t* rows) {
  *rows = 0;
  if (format == OutputFormat::kCsv) out << absl::StrJoin(Columns(), ",") << "\n";
  v1::ListRequestsRequest request;
  request.set_job_id(job_id);
  while (true) {
    absl::StatusOr<v1::ListRequestsResponse> page = client.ListRequests(request);
    if (!page.ok()) return page.status();
    for (const v1::ScenarioRequests& scenario : page->scenarios()) {
      for (const v1::RequestRow& row : scenario.records().rows()) {
        const nlohmann::ordered_json json = RowJson(scenario, row);
        if (format == OutputFormat::kCsv) {
          std::vector<std::string> cells;
          for (const std::string& column : Columns()) cells.push_back(Cell(json[column]));
          out << absl::StrJoin(cells, ",") << "\n";
        } else {
          out << json.dump() << "\n";
        }
        ++*rows;
      }
    }
    if (page->next_page_token().empty()) break;
    request.set_page_token(page->next_page_token());
  }
  out.flush();
  return absl::OkStatus();
}

}  // namespace kvbench::kvctl
