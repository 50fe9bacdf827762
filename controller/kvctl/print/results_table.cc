#include "controller/kvctl/print/results_table.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "controller/kvctl/print/table_printer.h"
#include "controller/results/few_scrapes.h"
#include "controller/results/metric_catalog.h"
#include "controller/results/offload_served.h"
#include "controller/results/simulated_time_display.h"
#include "controller/results/versions_summary.h"

namespace kvbench::kvctl {
namespace {

constexpr char kNull[] = "-";

// The catalog's metric `key` of `result` in its shown unit, with `decimals` digits.
std::string Shown(const char* key, const v1::ScenarioResult& result, int decimals) {
  const std::optional<double> value = results::ShownValue(results::MetricNamed(key), result);
  return value ? absl::StrFormat("%.*f", decimals, *value) : kNull;
}

// How much of an error a STATUS cell shows.
constexpr size_t kErrorShown = 100;

// `text`, cut to `limit` characters with "..." when longer.
std::string Abbreviated(absl::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  return absl::StrCat(text.substr(0, limit - 3), "...");
}

std::string Pct(bool has, double pct) { return has ? absl::StrFormat("%+.0f%%", pct) : kNull; }

// KV cache usage over the in-replay scrapes, mean/max in %: "40.7/85.0", with the count when
// they were few: "56.6/91.0 (3 scrapes)".
std::string KvUsage(const v1::EngineMetrics& engine) {
  if (!engine.has_kv_cache_usage_mean() && !engine.has_kv_cache_usage_max()) return kNull;
  auto pct = [](bool has, double fraction) {
    return has ? absl::StrFormat("%.1f", fraction * 100) : std::string(kNull);
  };
  return absl::StrCat(pct(engine.has_kv_cache_usage_mean(), engine.kv_cache_usage_mean()), "/",
                      pct(engine.has_kv_cache_usage_max(), engine.kv_cache_usage_max()),
                      results::FewScrapesText(engine));
}

// What offload served (vLLM's external hit tokens), with its share of the prompt tokens.
std::string OffloadServed(const v1::ScenarioResult& result) {
  const std::optional<double> tokens = results::OffloadServedTokens(result);
  if (!tokens) return kNull;
  const std::optional<double> pct = results::OffloadServedPctOfPrompt(result);
  return pct ? absl::StrFormat("%.0f (%.1f%%)", *tokens, *pct) : absl::StrFormat("%.0f", *tokens);
}

// LMCache's lookup hit tokens / lookup requested tokens, in %.
std::string LookupHitRate(const v1::ScenarioResult& result) {
  if (!result.has_lmcache() || !result.lmcache().has_hit_rate()) return kNull;
  return absl::StrFormat("%.1f", result.lmcache().hit_rate() * 100);
}

std::string WithoutPrefix(std::string name, absl::string_view prefix) {
  if (absl::StartsWith(name, prefix)) name = name.substr(prefix.size());
  return absl::AsciiStrToLower(name);
}

// The result's warning codes ("cache_server_metrics_unavailable,nvme_reads_not_from_disk"), or
// "-": result.json has their messages.
std::string Warnings(const v1::ScenarioResult& result) {
  std::vector<std::string> codes;
  for (const v1::ResultWarning& warning : result.warnings()) codes.push_back(warning.code());
  return codes.empty() ? kNull : absl::StrJoin(codes, ",");
}

// Whether some row is a repeat after the first (JobSpec.repeats): the table then says which run
// each row is (RUN, after TIER).
bool Repeated(const std::vector<ResultsRow>& rows) {
  return std::any_of(rows.begin(), rows.end(),
                     [](const ResultsRow& row) { return row.scenario.repeat() > 1; });
}

// Whether the rows are a FAN_OUT_EACH job's on more than one agent: the table then leads each row
// with its AGENT, else two nodes' "2 GPU" rows read as duplicates.
bool SeveralAgents(const std::vector<ResultsRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [&rows](const ResultsRow& row) {
    return row.scenario.agent_id() != rows.front().scenario.agent_id();
  });
}

std::vector<std::string> Cells(const ResultsRow& row) {
  const std::string concurrency = absl::StrCat(row.scenario.concurrency());
  const std::string tier = v1::Tier_Name(row.scenario.tier());
  if (!row.has_result) {
    return {concurrency, tier,  kNull, kNull, kNull,       kNull, kNull,
            kNull,       kNull, kNull, kNull, row.outcome, kNull};
  }
  const v1::ScenarioResult& result = row.result;
  const v1::LatencyMetrics& latency = results::ShownLatency(result);
  return {concurrency,
          tier,
          absl::StrCat(result.sessions().complete(), "/", result.sessions().requested()),
          Shown("ttft_p50_s", result, 1),
          Shown("ttft_p95_s", result, 1),
          Pct(latency.has_ttft_degradation_median_pct(), latency.ttft_degradation_median_pct()),
          Shown("requests_per_s", result, 2),
          absl::StrCat(result.sessions().failed_requests()),
          KvUsage(result.engine()),
          OffloadServed(result),
          LookupHitRate(result),
          row.outcome,
          Warnings(result)};
}

std::string CsvCell(const std::string& cell) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

ResultsRow ResultsRowFromOutcome(const v1::Scenario& scenario, const absl::Status& status,
                                 const v1::ScenarioResult& result) {
  ResultsRow row;
  row.scenario = scenario;
  row.has_result = status.ok();
  if (status.ok()) {
    row.result = result;
    const v1::SessionCounts& s = result.sessions();
    const int lost = s.incomplete() + s.not_started() + s.truncated_by_isl() + s.error();
    // Everything that went wrong in the run, not just the first thing (a replica that died
    // mid-run lost sessions too: "ok (process died)" would hide 5 of 16 lost).
    std::vector<std::string> notes;
    if (result.process_failures_size() > 0) notes.push_back("process died");
    if (lost > 0)
      notes.push_back(absl::StrCat(lost, lost == 1 ? " session" : " sessions", " lost"));
    if (result.lmcache().l2_store_failed_chunks() > 0) {
      notes.push_back(absl::StrCat(result.lmcache().l2_store_failed_chunks(), " L2 stores failed"));
    }
    // Failed requests with the share and the first error (otherwise the error is only in
    // requests.jsonl).
    if (s.failed_requests() > 0) {
      const int64_t sent = s.failed_requests() + result.latency().requests_completed();
      notes.push_back(absl::StrCat(
          s.failed_requests(), " of ", sent, " requests failed",
          s.first_error().empty() ? "" : ", first: ", Abbreviated(s.first_error(), kErrorShown)));
    }
    row.outcome = notes.empty() ? "ok" : absl::StrCat("ok (", absl::StrJoin(notes, ", "), ")");
  } else {
    row.outcome = status.code() == absl::StatusCode::kCancelled ? "cancelled" : "failed";
    // Why, in its first line (kvctl status has the whole reason).
    const std::vector<absl::string_view> lines = absl::StrSplit(status.message(), '\n');
    if (!lines.empty() && !lines.front().empty()) {
      absl::StrAppend(&row.outcome, ": ", Abbreviated(lines.front(), kErrorShown));
    }
  }
  return row;
}

ResultsRow ResultsRowFromScenarioStatus(const v1::ScenarioStatus& status) {
  switch (status.state()) {
    case v1::SCENARIO_STATE_SUCCEEDED:
      return ResultsRowFromOutcome(status.scenario(), absl::OkStatus(), status.result());
    case v1::SCENARIO_STATE_FAILED:
    case v1::SCENARIO_STATE_LOST:
      return ResultsRowFromOutcome(status.scenario(), absl::AbortedError(status.error()), {});
    case v1::SCENARIO_STATE_CANCELLED:
      return ResultsRowFromOutcome(status.scenario(), absl::CancelledError(status.error()), {});
    default: {
      ResultsRow row;
      row.scenario = status.scenario();
      row.outcome = ScenarioStateName(status.state());
      return row;
    }
  }
}

std::string SimulatedTimeNote(const std::vector<ResultsRow>& rows) {
  std::vector<const v1::ScenarioResult*> with_results;
  for (const ResultsRow& row : rows) {
    if (row.has_result) with_results.push_back(&row.result);
  }
  return results::SimulatedTimeNote(with_results);
}

std::vector<std::string> ResultsTableHeaders(const std::vector<ResultsRow>& rows) {
  // Simulated times get their own column names, so that no one reads them as observed.
  const bool simulated = !SimulatedTimeNote(rows).empty();
  const std::string prefix = simulated ? "SIM_" : "";
  std::vector<std::string> headers = {"CONCURRENCY",
                                      "TIER",
                                      "SESSIONS",
                                      prefix + "TTFT_P50_MS",
                                      prefix + "TTFT_P95_MS",
                                      "DEGRADATION_P50",
                                      prefix + "REQ/S",
                                      "FAILED",
                                      "KV_MEAN/MAX%",
                                      "OFFLOAD_SERVED_TOK",
                                      "LMC_LOOKUP_HIT%",
                                      "STATUS",
                                      "WARNINGS"};
  if (Repeated(rows)) headers.insert(headers.begin() + 2, "RUN");
  if (SeveralAgents(rows)) headers.insert(headers.begin(), "AGENT");
  return headers;
}

std::vector<std::vector<std::string>> ResultsTableCells(const std::vector<ResultsRow>& rows) {
  std::vector<const ResultsRow*> ordered;
  for (const ResultsRow& row : rows) ordered.push_back(&row);
  std::stable_sort(ordered.begin(), ordered.end(), [](const ResultsRow* a, const ResultsRow* b) {
    return std::make_tuple(a->scenario.agent_id(), a->scenario.concurrency()) <
           std::make_tuple(b->scenario.agent_id(), b->scenario.concurrency());
  });
  std::vector<std::vector<std::string>> cells;
  const bool repeated = Repeated(rows);
  const bool several_agents = SeveralAgents(rows);
  for (const ResultsRow* row : ordered) {
    std::vector<std::string>& line = cells.emplace_back(Cells(*row));
    if (repeated) {
      line.insert(line.begin() + 2, absl::StrCat(std::max(row->scenario.repeat(), 1)));
    }
    if (several_agents) line.insert(line.begin(), row->scenario.agent_id());
  }
  return cells;
}

std::string VersionsNote(const std::vector<ResultsRow>& rows) {
  std::vector<const v1::ScenarioResult*> results;
  for (const ResultsRow& row : rows) {
    if (row.has_result) results.push_back(&row.result);
  }
  std::vector<std::string> parts;
  for (const results::ComponentVersions& component : results::SummarizeVersions(results)) {
    parts.push_back(results::VersionsText(component));
  }
  return parts.empty() ? "" : absl::StrCat("versions: ", absl::StrJoin(parts, " · "));
}

void PrintResultsTable(const std::vector<ResultsRow>& rows, std::ostream& out) {
  if (const std::string note = SimulatedTimeNote(rows); !note.empty()) out << note << "\n";
  TablePrinter table(ResultsTableHeaders(rows));
  for (std::vector<std::string>& cells : ResultsTableCells(rows)) table.AddRow(std::move(cells));
  table.Print(out);
  if (const std::string note = VersionsNote(rows); !note.empty()) out << note << "\n";
}

void PrintCsv(const std::vector<std::string>& headers,
              const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  auto line = [&out](const std::vector<std::string>& cells) {
    std::vector<std::string> quoted;
    for (const std::string& cell : cells) quoted.push_back(CsvCell(cell));
    out << absl::StrJoin(quoted, ",") << "\n";
  };
  line(headers);
  for (const auto& row : rows) line(row);
}

std::string JobStateName(v1::JobState state) {
  return WithoutPrefix(v1::JobState_Name(state), "JOB_STATE_");
}

std::string ScenarioStateName(v1::ScenarioState state) {
  return WithoutPrefix(v1::ScenarioState_Name(state), "SCENARIO_STATE_");
}

std::string ScenarioPhaseName(v1::ScenarioPhase phase) {
  return WithoutPrefix(v1::ScenarioPhase_Name(phase), "SCENARIO_PHASE_");
}

}  // namespace kvbench::kvctl
