// kvctl jobs [--state S]... [--name-prefix P] [--label k=v]... [--page-size N] [--all]: the
// controller's jobs, newest first, one page (or every page with --all).

#include <memory>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/json/proto_json.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/kvctl/print/results_table.h"
#include "controller/kvctl/print/table_printer.h"

namespace kvbench::kvctl {
namespace {

// --all stops after this many pages: a guard against a server that never ends its paging.
constexpr int kMaxPages = 10000;

struct JobsFlags {
  std::vector<std::string> states;
  std::string name_prefix;
  std::vector<std::string> labels;
  int page_size = 0;  // 0 = the controller's default
  std::string page_token;
  bool all = false;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

// "running", "RUNNING" or "JOB_STATE_RUNNING".
absl::StatusOr<v1::JobState> ParseJobState(const std::string& text) {
  std::string name = absl::AsciiStrToUpper(text);
  if (!absl::StartsWith(name, "JOB_STATE_")) name = "JOB_STATE_" + name;
  v1::JobState state;
  if (!v1::JobState_Parse(name, &state) || state == v1::JOB_STATE_UNSPECIFIED) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--state: \"", text, "\" is not one of queued, running, succeeded, failed, cancelled"));
  }
  return state;
}

absl::StatusOr<v1::ListJobsRequest> MakeRequest(const JobsFlags& flags) {
  v1::ListJobsRequest request;
  if (flags.page_size < 0) return absl::InvalidArgumentError("--page-size must be positive");
  request.set_page_size(flags.page_size);
  request.set_page_token(flags.page_token);
  request.set_name_prefix(flags.name_prefix);
  for (const std::string& text : flags.states) {
    absl::StatusOr<v1::JobState> state = ParseJobState(text);
    if (!state.ok()) return state.status();
    request.add_states(*state);
  }
  for (const std::string& label : flags.labels) {
    std::pair<std::string, std::string> pair = absl::StrSplit(label, absl::MaxSplits('=', 1));
    if (pair.first.empty() || label.find('=') == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("--label: \"", label, "\" is not key=value"));
    }
    (*request.mutable_labels())[pair.first] = pair.second;
  }
  return request;
}

std::string SubmitTimeText(int64_t ms) {
  if (ms <= 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixMillis(ms), absl::UTCTimeZone());
}

std::vector<std::string> JobCells(const v1::Job& job) {
  int succeeded = 0;
  for (const v1::ScenarioStatus& scenario : job.scenarios()) {
    if (scenario.state() == v1::SCENARIO_STATE_SUCCEEDED) ++succeeded;
  }
  return {job.job_id(),
          job.spec().name(),
          JobStateName(job.state()),
          absl::StrCat(succeeded, "/", job.scenarios_size()),
          SubmitTimeText(job.submit_unix_ms()),
          job.error()};
}

void Print(const std::vector<v1::Job>& jobs, const std::string& next_page_token,
           OutputFormat format, std::ostream& out) {
  const std::vector<std::string> headers = {"JOB",       "NAME",      "STATE",
                                            "SCENARIOS", "SUBMITTED", "ERROR"};
  if (format == OutputFormat::kJson) {
    nlohmann::ordered_json json;
    json["jobs"] = nlohmann::ordered_json::array();
    for (const v1::Job& job : jobs) {
      json["jobs"].push_back(nlohmann::ordered_json::parse(ProtoToJson(job)));
    }
    json["next_page_token"] = next_page_token;
    out << json.dump(2) << "\n";
    return;
  }
  std::vector<std::vector<std::string>> rows;
  for (const v1::Job& job : jobs) rows.push_back(JobCells(job));
  if (format == OutputFormat::kCsv) {
    PrintCsv(headers, rows, out);
    return;
  }
  TablePrinter table(headers);
  for (auto& row : rows) table.AddRow(std::move(row));
  table.Print(out);
  if (!next_page_token.empty()) {
    out << "\nmore: --page-token " << next_page_token << " (or --all)\n";
  }
}

absl::Status ListJobs(const JobsFlags& flags, KvctlContext* context) {
  absl::StatusOr<v1::ListJobsRequest> request = MakeRequest(flags);
  if (!request.ok()) return request.status();
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      ConnectController(flags.connection, *context);
  if (!client.ok()) return client.status();
  std::vector<v1::Job> jobs;
  std::string next_page_token;
  for (int page = 0;; ++page) {
    if (page >= kMaxPages) return absl::InternalError("the controller's paging never ended");
    absl::StatusOr<v1::ListJobsResponse> response = (*client)->ListJobs(*request);
    if (!response.ok()) return response.status();
    for (v1::Job& job : *response->mutable_jobs()) jobs.push_back(std::move(job));
    next_page_token = response->next_page_token();
    if (!flags.all || next_page_token.empty()) break;
    request->set_page_token(next_page_token);
  }
  Print(jobs, next_page_token, flags.format, *context->out);
  return absl::OkStatus();
}

}  // namespace

void AddJobsCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand("jobs", "List the controller's jobs, newest first");
  auto flags = std::make_shared<JobsFlags>();
  command->add_option("--state", flags->states,
                      "Only jobs in this state (queued, running, succeeded, failed, cancelled); "
                      "repeatable");
  command->add_option("--name-prefix", flags->name_prefix, "Only jobs whose name starts so");
  command->add_option("--label", flags->labels, "Only jobs with this label key=value; repeatable");
  command->add_option("--page-size", flags->page_size, "Jobs per page (controller default 50)");
  command->add_option("--page-token", flags->page_token, "Page to start at (from a previous list)");
  command->add_flag("--all", flags->all, "Follow every page");
  AddOutputOption(command, &flags->format,
                  {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv});
  AddConnectionFlags(command, &flags->connection);
  command->callback([context, flags] {
    context->action = [context, flags] { return ListJobs(*flags, context); };
  });
}

}  // namespace kvbench::kvctl
