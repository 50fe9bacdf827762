// kvctl history [SCHEDULE] [--label k=v]... [--metric FIELD] [--last N] [--since TIME]
//               [--until TIME] [--agent ID] [--tier T] [--concurrency N]
//               [--output table|json|csv|otava-csv] [--html FILE]
// One result field of a schedule's runs (or of the jobs with some labels) over time, per
// agent x tier x concurrency: a table with one column per run, JSON, long CSV, and an
// HTML page with one chart per agent and concurrency, one line per tier.

#include <algorithm>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/files/atomic_file.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/history_data.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/otava_csv.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/kvctl/print/table_printer.h"
#include "controller/report/history_report.h"

namespace kvbench::kvctl {
namespace {

constexpr int kDefaultRuns = 10;

struct HistoryFlags {
  std::string schedule;
  std::vector<std::string> labels;
  std::string metric = "latency.ttft_p50_s";
  int last = kDefaultRuns;
  std::string since;
  std::string until;
  std::string agent;
  std::string tier;
  int concurrency = 0;
  std::string html;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

std::string Value(const std::optional<double>& value) {
  return value ? absl::StrFormat("%.6g", *value) : "-";
}

// The schedule's change points of the history's metric that fall on one of its runs.
absl::Status AddChangePoints(client::ControllerClient& client, const std::string& schedule,
                             report::History* history) {
  absl::StatusOr<v1::ListChangePointsResponse> points = client.ListChangePoints(schedule);
  if (!points.ok()) return points.status();
  const std::string metric = RegressionMetricOf(history->metric);
  for (const v1::ChangePoint& point : points->change_points()) {
    if (point.metric() != metric) continue;
    const std::vector<report::HistorySeries>& lines = history->series;
    if (std::none_of(lines.begin(), lines.end(), [&point](const report::HistorySeries& line) {
          return line.agent_id == point.agent() && line.tier == point.tier() &&
                 line.concurrency == point.concurrency();
        })) {
      continue;  // a line the filter left out
    }
    for (size_t i = 0; i < history->runs.size(); ++i) {
      if (history->runs[i].job_id != point.job_id()) continue;
      history->change_points.push_back({point.agent(), point.tier(), point.concurrency(), i,
                                        point.magnitude_pct(), point.p_value(),
                                        point.bad_direction()});
    }
  }
  return absl::OkStatus();
}

void PrintChangePoints(const report::History& history, std::ostream& out) {
  if (history.change_points.empty()) return;
  out << "\nchange points (a new level from that run on):\n";
  for (const report::HistoryChangePoint& point : history.change_points) {
    out << "  run #" << point.run_index + 1 << " " << history.runs[point.run_index].job_id << ": "
        << (point.agent_id.empty() ? "-" : point.agent_id) << " " << v1::Tier_Name(point.tier)
        << " c" << point.concurrency
        << absl::StrFormat(" %+.1f%%, p = %.3g", point.magnitude_pct, point.p_value)
        << (point.bad_direction ? " (worse)" : "") << "\n";
  }
}

void PrintHistoryTable(const report::History& history, std::ostream& out) {
  out << history.metric << " of " << history.title << ", " << history.runs.size()
      << " runs (oldest first)"
      << (history.simulated ? "; a simulated engine's times in simulated seconds" : "") << "\n\n";
  std::vector<std::string> headers = {"AGENT", "TIER", "CONCURRENCY"};
  for (size_t i = 0; i < history.runs.size(); ++i) headers.push_back(absl::StrCat("#", i + 1));
  TablePrinter table(headers);
  for (const report::HistorySeries& series : history.series) {
    std::vector<std::string> row = {series.agent_id.empty() ? "-" : series.agent_id,
                                    v1::Tier_Name(series.tier), absl::StrCat(series.concurrency)};
    for (const std::optional<double>& value : series.values) row.push_back(Value(value));
    table.AddRow(std::move(row));
  }
  table.Print(out);
  PrintChangePoints(history, out);
  out << "\n";
  TablePrinter runs({"RUN", "FIRE_TIME", "JOB", "STATE", "ALERTS", "VERDICTS"});
  for (size_t i = 0; i < history.runs.size(); ++i) {
    const report::HistoryRun& run = history.runs[i];
    runs.AddRow({absl::StrCat("#", i + 1), run.fire_time, run.job_id, run.state,
                 absl::StrCat(run.alerts),
                 run.verdicts.empty() ? "-" : absl::StrJoin(run.verdicts, ", ")});
  }
  runs.Print(out);
}

void PrintHistoryCsv(const report::History& history, std::ostream& out) {
  out << "fire_time,job_id,agent_id,tier,concurrency,metric,value\n";
  for (const report::HistorySeries& series : history.series) {
    for (size_t i = 0; i < series.values.size(); ++i) {
      const report::HistoryRun& run = history.runs[i];
      out << run.fire_time << "," << run.job_id << "," << series.agent_id << ","
          << v1::Tier_Name(series.tier) << "," << series.concurrency << "," << history.metric << ","
          << (series.values[i] ? nlohmann::json(*series.values[i]).dump() : "") << "\n";
    }
  }
}

void PrintHistoryJson(const report::History& history, std::ostream& out) {
  nlohmann::ordered_json json;
  json["title"] = history.title;
  json["metric"] = history.metric;
  json["simulated"] = history.simulated;
  json["runs"] = nlohmann::ordered_json::array();
  for (const report::HistoryRun& run : history.runs) {
    json["runs"].push_back({{"job_id", run.job_id},
                            {"fire_time", run.fire_time},
                            {"state", run.state},
                            {"alerts", run.alerts},
                            {"verdicts", run.verdicts}});
  }
  json["series"] = nlohmann::ordered_json::array();
  for (const report::HistorySeries& series : history.series) {
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (const std::optional<double>& value : series.values) {
      values.push_back(value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr));
    }
    json["series"].push_back({{"agent_id", series.agent_id},
                              {"tier", v1::Tier_Name(series.tier)},
                              {"concurrency", series.concurrency},
                              {"values", std::move(values)}});
  }
  json["change_points"] = nlohmann::ordered_json::array();
  for (const report::HistoryChangePoint& point : history.change_points) {
    json["change_points"].push_back({{"agent_id", point.agent_id},
                                     {"tier", v1::Tier_Name(point.tier)},
                                     {"concurrency", point.concurrency},
                                     {"run", point.run_index + 1},
                                     {"job_id", history.runs[point.run_index].job_id},
                                     {"magnitude_pct", point.magnitude_pct},
                                     {"p_value", point.p_value},
                                     {"bad_direction", point.bad_direction}});
  }
  json["alerts"] = nlohmann::ordered_json::array();
  for (const report::HistoryAlert& alert : history.alerts) {
    json["alerts"].push_back({{"agent_id", alert.agent_id},
                              {"tier", v1::Tier_Name(alert.tier)},
                              {"concurrency", alert.concurrency},
                              {"run", alert.run_index + 1},
                              {"job_id", history.runs[alert.run_index].job_id},
                              {"summary", alert.text}});
  }
  out << json.dump(2) << "\n";
}

// --since / --until: an RFC 3339 time, or a date (UTC): its start for --since, its end for
// --until (both bounds are inclusive).
absl::StatusOr<absl::Time> ParseBound(const std::string& flag, const std::string& text,
                                      bool end_of_day) {
  absl::Time time;
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, text, &time, &error)) return time;
  std::string date_error;
  if (absl::ParseTime("%Y-%m-%d", text, absl::UTCTimeZone(), &time, &date_error)) {
    return end_of_day ? time + absl::Hours(24) - absl::Milliseconds(1) : time;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      flag, ": \"", text, "\" is neither an RFC 3339 time (2026-12-05T02:00:00Z) nor a date (",
      "2026-12-05): ", error));
}

// The jobs of the selection, newest first, at most `last` of them after `since`.
absl::StatusOr<std::vector<v1::Job>> SelectJobs(client::ControllerClient& client,
                                                const HistoryFlags& flags) {
  v1::ListJobsRequest request;
  request.set_page_size(1000);
  if (!flags.schedule.empty()) (*request.mutable_labels())["kvbench.schedule"] = flags.schedule;
  for (const std::string& label : flags.labels) {
    std::pair<std::string, std::string> pair = absl::StrSplit(label, absl::MaxSplits('=', 1));
    if (pair.first.empty() || label.find('=') == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("--label: \"", label, "\" is not key=value"));
    }
    (*request.mutable_labels())[pair.first] = pair.second;
  }
  absl::Time since = absl::InfinitePast(), until = absl::InfiniteFuture();
  if (!flags.since.empty()) {
    absl::StatusOr<absl::Time> parsed = ParseBound("--since", flags.since, false);
    if (!parsed.ok()) return parsed.status();
    since = *parsed;
  }
  if (!flags.until.empty()) {
    absl::StatusOr<absl::Time> parsed = ParseBound("--until", flags.until, true);
    if (!parsed.ok()) return parsed.status();
    until = *parsed;
  }
  if (since > until) {
    return absl::InvalidArgumentError(
        absl::StrCat("--since ", flags.since, " is after --until ", flags.until));
  }
  std::vector<v1::Job> jobs;
  while (static_cast<int>(jobs.size()) < flags.last) {
    absl::StatusOr<v1::ListJobsResponse> page = client.ListJobs(request);
    if (!page.ok()) return page.status();
    for (const v1::Job& listed : page->jobs()) {  // newest first
      const absl::Time submitted = absl::FromUnixMillis(listed.submit_unix_ms());
      if (submitted < since) break;
      if (submitted > until) continue;
      if (static_cast<int>(jobs.size()) == flags.last) break;
      absl::StatusOr<v1::Job> job = client.GetJob(listed.job_id());  // with results
      if (!job.ok()) return job.status();
      jobs.push_back(*std::move(job));
    }
    if (page->next_page_token().empty()) break;
    request.set_page_token(page->next_page_token());
  }
  return jobs;
}

absl::Status History(const HistoryFlags& flags, KvctlContext* context) {
  if (flags.schedule.empty() && flags.labels.empty()) {
    return absl::InvalidArgumentError("history needs a SCHEDULE or --label k=v");
  }
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      ConnectController(flags.connection, *context);
  if (!client.ok()) return client.status();
  absl::StatusOr<std::vector<v1::Job>> jobs = SelectJobs(**client, flags);
  if (!jobs.ok()) return jobs.status();
  if (jobs->empty()) {
    return absl::NotFoundError(absl::StrCat("no jobs of ", flags.schedule.empty()
                                                               ? std::string("those labels")
                                                               : "schedule " + flags.schedule));
  }
  const std::string title = flags.schedule.empty()
                                ? absl::StrCat("labels ", absl::StrJoin(flags.labels, ","))
                                : absl::StrCat("schedule ", flags.schedule);
  HistoryFilter filter;
  filter.agent = flags.agent;
  if (!flags.tier.empty()) {
    v1::Tier tier;
    if (!v1::Tier_Parse(absl::AsciiStrToUpper(flags.tier), &tier) || tier == v1::TIER_UNSPECIFIED) {
      return absl::InvalidArgumentError(
          absl::StrCat("--tier: \"", flags.tier, "\" is not GPU, CPU_RAM or NVME"));
    }
    filter.tier = tier;
  }
  if (flags.concurrency > 0) filter.concurrency = flags.concurrency;
  absl::StatusOr<report::History> history =
      BuildHistory(*std::move(jobs), flags.metric, title, filter);
  if (!history.ok()) return history.status();
  if (!flags.schedule.empty()) {
    absl::Status marked = AddChangePoints(**client, flags.schedule, &*history);
    if (!marked.ok()) return marked;
  }
  if (!flags.html.empty()) {
    absl::Status written = WriteFileAtomically(flags.html, report::RenderHistoryHtml(*history));
    if (!written.ok()) return written;
    *context->out << flags.html << "\n";
    return absl::OkStatus();
  }
  switch (flags.format) {
    case OutputFormat::kJson:
      PrintHistoryJson(*history, *context->out);
      break;
    case OutputFormat::kCsv:
      PrintHistoryCsv(*history, *context->out);
      break;
    case OutputFormat::kOtavaCsv:
      for (const std::string& run : PrintOtavaCsv(*history, *context->out)) {
        *context->err << "kvctl: run " << run
                      << " left out of the Otava CSV: Otava reads every metric cell as a number\n";
      }
      break;
    default:
      PrintHistoryTable(*history, *context->out);
      break;
  }
  return absl::OkStatus();
}

}  // namespace

void AddHistoryCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "history", "One result field of a schedule's runs over time, per agent x tier x concurrency");
  auto flags = std::make_shared<HistoryFlags>();
  command->add_option("schedule", flags->schedule, "Schedule name (its jobs' kvbench.schedule)");
  command->add_option("--label", flags->labels, "Only jobs with this label key=value; repeatable");
  command->add_option("--metric", flags->metric,
                      "A result field as kvctl results --output csv names it (default "
                      "latency.ttft_p50_s; e.g. latency.ttft_p95_s, latency.requests_per_s, "
                      "lmcache.lookup_hit_rate)");
  command->add_option("--last", flags->last, "The newest N runs (default 10)")
      ->check(CLI::Range(1, 10000));
  command->add_option("--since", flags->since,
                      "Only runs submitted at or after this RFC 3339 time or date (UTC)");
  command->add_option("--until", flags->until,
                      "Only runs submitted at or before this RFC 3339 time or date (UTC, the "
                      "whole day)");
  command->add_option("--agent", flags->agent, "Only the lines of this agent");
  command->add_option("--tier", flags->tier, "Only the lines of this tier (GPU, CPU_RAM, NVME)");
  command->add_option("--concurrency", flags->concurrency, "Only the lines at this concurrency")
      ->check(CLI::PositiveNumber);
  command->add_option("--html", flags->html, "Write the charts as one self-contained HTML file");
  AddOutputOption(
      command, &flags->format,
      {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv, OutputFormat::kOtavaCsv});
  AddConnectionFlags(command, &flags->connection);
  command->callback([context, flags] {
    context->action = [context, flags] { return History(*flags, context); };
  });
}

}  // namespace kvbench::kvctl
