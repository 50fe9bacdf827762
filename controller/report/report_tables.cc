#include "controller/report/report_tables.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "controller/report/text_format.h"
#include "controller/report/tier_style.h"
#include "controller/results/simulated_time_display.h"

namespace kvbench::report {
namespace {

constexpr double kBytesPerGb = 1e9;

// kvsim-lmcache writes its L2 files scaled (--sim-l2-bytes-scale, 1e-3 by default: a 2 MB chunk
// is a 2 kB file), so the disk figures are the real disk's under that scaled load.
constexpr char kSimulatedDiskNote[] =
    "<p class=\"table-note\">Simulated engine: the disk columns measure the real disk under "
    "kvsim-lmcache's <em>scaled</em> L2 files (each chunk written at --sim-l2-bytes-scale of its "
    "size, 1e-3 by default), not the load a real LMCache would put on it.</p>\n";

template <typename Value>
std::optional<double> Opt(bool has, Value value) {
  if (!has) return std::nullopt;
  return static_cast<double>(value);
}

std::string Row(const std::vector<std::string>& cells) {
  return absl::StrCat("<tr><td>", absl::StrJoin(cells, "</td><td>"), "</td></tr>\n");
}

// A run's row, led by its agent when the job ran on several (FAN_OUT_EACH).
std::string RunRow(const ReportRuns& runs, const ReportRun& run, std::vector<std::string> cells) {
  if (runs.several_agents()) cells.insert(cells.begin(), HtmlEscape(run.agent));
  return Row(cells);
}

std::string Header(const std::vector<std::string>& cells) {
  return absl::StrCat("<thead><tr><th>", absl::StrJoin(cells, "</th><th>"), "</th></tr></thead>\n");
}

std::string RunHeader(const ReportRuns& runs, std::vector<std::string> cells) {
  if (runs.several_agents()) cells.insert(cells.begin(), "agent");
  return Header(cells);
}

std::string TierCell(v1::Tier tier) {
  const TierStyle style = StyleOfTier(tier);
  return absl::StrCat("<span class=\"tier-swatch\" style=\"background:", style.color, "\"></span>",
                      style.name);
}

std::string Param(const std::string& name, const std::string& escaped_value) {
  return absl::StrCat("<tr><th>", name, "</th><td>", escaped_value, "</td></tr>\n");
}

std::string Labels(const v1::JobSpec& spec) {
  std::vector<std::pair<std::string, std::string>> labels(spec.labels().begin(),
                                                          spec.labels().end());
  std::sort(labels.begin(), labels.end());  // a proto map has no stable order
  std::vector<std::string> parts;
  for (const auto& [key, value] : labels) parts.push_back(HtmlEscape(key + "=" + value));
  return parts.empty() ? "&#8212;" : absl::StrJoin(parts, ", ");
}

std::string Tiers(const v1::JobSpec& spec) {
  std::vector<std::string> names;
  for (int tier : spec.tiers()) names.push_back(TierCell(static_cast<v1::Tier>(tier)));
  return absl::StrJoin(names, " ");
}

std::string OptionalInt(bool has, int64_t value, const std::string& unset) {
  return has ? absl::StrCat(value) : unset;
}

std::string SessionsRow(const ReportRuns& runs, const ReportRun& run) {
  const v1::SessionCounts& s = run.result->sessions();
  return RunRow(
      runs, run,
      {TierCell(run.tier), absl::StrCat(run.concurrency), absl::StrCat(s.requested()),
       absl::StrCat(s.achieved()), absl::StrCat(s.dataset_ceiling()),
       OptionalInt(s.has_dataset_ceiling_under_isl(), s.dataset_ceiling_under_isl(), "-"),
       absl::StrCat(s.complete()), absl::StrCat(s.incomplete()), absl::StrCat(s.not_started()),
       absl::StrCat(s.truncated_by_isl()), absl::StrCat(s.error()),
       absl::StrCat(s.failed_requests()), HtmlEscape(s.selection())});
}

std::string OffloadRow(const ReportRuns& runs, const ReportRun& run) {
  const v1::LmcacheMetrics& l = run.result->lmcache();
  const v1::DiskMetrics& d = run.result->disk();
  const bool disk = run.result->has_disk();
  auto pct = [](bool has, double fraction) { return FormatOptional(Opt(has, fraction * 100)); };
  auto gb = [](bool has, int64_t bytes) { return FormatOptional(Opt(has, bytes / kBytesPerGb)); };
  auto dv = [disk](bool has, double value) { return FormatOptional(Opt(disk && has, value)); };
  return RunRow(runs, run,
                {TierCell(run.tier),
                 absl::StrCat(run.concurrency),
                 pct(l.has_hit_rate(), l.hit_rate()),
                 FormatOptional(Opt(l.has_lookup_hit_tokens(), l.lookup_hit_tokens())),
                 FormatOptional(Opt(l.has_lookup_requested_tokens(), l.lookup_requested_tokens())),
                 FormatOptional(Opt(l.has_evicted_chunks(), l.evicted_chunks())),
                 FormatOptional(Opt(l.has_chunks_loaded(), l.chunks_loaded())),
                 pct(l.has_l1_usage_ratio_mean(), l.l1_usage_ratio_mean()),
                 gb(l.has_l1_usage_bytes_max(), l.l1_usage_bytes_max()),
                 gb(l.has_l2_usage_bytes_max(), l.l2_usage_bytes_max()),
                 FormatOptional(Opt(l.has_l0_l1_load_gb_per_s(), l.l0_l1_load_gb_per_s())),
                 FormatOptional(Opt(l.has_l0_l1_store_gb_per_s(), l.l0_l1_store_gb_per_s())),
                 FormatOptional(Opt(l.has_l2_load_gb_per_s(), l.l2_load_gb_per_s())),
                 FormatOptional(Opt(l.has_l2_store_gb_per_s(), l.l2_store_gb_per_s())),
                 disk && !d.device().empty() ? HtmlEscape(d.device()) : "&#8212;",
                 dv(d.has_read_gb_per_s(), d.read_gb_per_s()),
                 dv(d.has_write_gb_per_s(), d.write_gb_per_s()),
                 dv(d.has_read_iops(), d.read_iops()),
                 dv(d.has_write_iops(), d.write_iops()),
                 dv(d.has_read_latency_ms(), d.read_latency_ms()),
                 dv(d.has_write_latency_ms(), d.write_latency_ms()),
                 dv(d.has_utilization_pct(), d.utilization_pct()),
                 dv(d.has_queue_depth_mean(), d.queue_depth_mean())});
}

}  // namespace

std::string VerdictText(v1::Verdict verdict) {
  switch (verdict) {
    case v1::VERDICT_VALID:
      return "VALID";
    case v1::VERDICT_INVALID:
      return "INVALID";
    case v1::VERDICT_NOT_EXERCISED:
      return "NOT EXERCISED";
    default:
      return "UNSPECIFIED";
  }
}

std::string ParametersTable(const v1::Job& job) {
  const v1::JobSpec& spec = job.spec();
  std::vector<std::string> concurrency;
  for (int value : spec.concurrency()) concurrency.push_back(absl::StrCat(value));
  std::string dataset = HtmlEscape(spec.dataset().code());
  if (!spec.dataset().path().empty())
    absl::StrAppend(&dataset, " (", HtmlEscape(spec.dataset().path()), ")");
  return absl::StrCat(
      "<table class=\"params\">\n", Param("model", HtmlEscape(spec.model())),
      Param("engine", v1::Engine_Name(spec.engine())),
      Param("build", v1::Vendor_Name(spec.build())),
      Param("replicas", OptionalInt(spec.has_replicas(), spec.replicas(), "1")),
      Param("tensor parallel size",
            OptionalInt(spec.has_tensor_parallel_size(), spec.tensor_parallel_size(), "1")),
      Param("dataset", dataset), Param("rounds per session", absl::StrCat(spec.num_rounds())),
      Param("ISL (tokens)", spec.isl() == 0 ? "no limit" : absl::StrCat(spec.isl())),
      Param("OSL (tokens)", spec.osl() == 0 ? "recorded length" : absl::StrCat(spec.osl())),
      Param("sessions", OptionalInt(spec.has_sessions(), spec.sessions(), "= concurrency")),
      Param("concurrency", absl::StrJoin(concurrency, ", ")), Param("tiers", Tiers(spec)),
      Param("labels", Labels(spec)), "</table>\n");
}

std::string ValiditySection(const std::vector<v1::Validity>& validity) {
  if (validity.empty()) {
    return "<p class=\"verdict-none\">No verdicts: no comparison group has results to "
           "compare yet.</p>\n";
  }
  std::string out;
  for (const v1::Validity& group : validity) {
    std::string text = VerdictText(group.verdict());
    std::string css = text == "NOT EXERCISED" ? "not-exercised" : absl::AsciiStrToLower(text);
    absl::StrAppend(&out, "<div class=\"verdict verdict-", css,
                    "\"><h3><span class=\"verdict-label\">", text, "</span> comparison group ",
                    HtmlEscape(group.comparison_group()), "</h3>\n");
    if (group.reasons_size() > 0) out += "<ul>\n";
    for (const v1::ValidityReason& reason : group.reasons()) {
      absl::StrAppend(&out, "<li><code>", HtmlEscape(reason.code()), "</code> ",
                      HtmlEscape(reason.message()), "</li>\n");
    }
    if (group.reasons_size() > 0) out += "</ul>\n";
    if (group.notes_size() > 0) out += "<ul class=\"verdict-notes\">\n";
    for (const v1::ValidityReason& note : group.notes()) {
      absl::StrAppend(&out, "<li>note <code>", HtmlEscape(note.code()), "</code> ",
                      HtmlEscape(note.message()), "</li>\n");
    }
    if (group.notes_size() > 0) out += "</ul>\n";
    out += "</div>\n";
  }
  return out;
}

std::string ScenariosTable(const v1::Job& job) {
  std::string out = absl::StrCat(
      "<table class=\"scenarios\">\n",
      Header({"scenario", "tier", "concurrency", "state", "agent", "error / process failures"}));
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    std::vector<std::string> problems;
    if (!status.error().empty()) problems.push_back(HtmlEscape(status.error()));
    // Requests that failed in a scenario that still succeeded.
    const v1::SessionCounts& sessions = status.result().sessions();
    if (status.state() == v1::SCENARIO_STATE_SUCCEEDED && sessions.failed_requests() > 0) {
      problems.push_back(HtmlEscape(absl::StrCat(
          sessions.failed_requests(), " of ",
          sessions.failed_requests() + status.result().latency().requests_completed(),
          " requests failed",
          sessions.first_error().empty() ? "" : ", the first: " + sessions.first_error())));
    }
    for (const std::string& failure : status.result().process_failures()) {
      problems.push_back(HtmlEscape(failure));
    }
    absl::StrAppend(
        &out, Row({HtmlEscape(status.scenario().scenario_id()), TierCell(status.scenario().tier()),
                   absl::StrCat(status.scenario().concurrency()),
                   std::string(absl::StripPrefix(v1::ScenarioState_Name(status.state()),
                                                 "SCENARIO_STATE_")),
                   HtmlEscape(status.agent_id()), absl::StrJoin(problems, "<br>")}));
  }
  return out + "</table>\n";
}

std::string SessionsTable(const ReportRuns& runs) {
  if (runs.runs().empty()) return "<p class=\"no-data\">no data</p>\n";
  std::string out = absl::StrCat(
      "<table class=\"sessions\">\n",
      RunHeader(runs, {"tier", "concurrency", "requested", "achieved", "dataset ceiling",
                       "ceiling under ISL", "complete", "incomplete", "not started",
                       "truncated by ISL", "error", "failed requests", "users chosen"}));
  for (const ReportRun& run : runs.runs()) out += SessionsRow(runs, run);
  return out + "</table>\n";
}

std::string OffloadTable(const ReportRuns& runs) {
  std::string rows;
  bool simulated_disk = false;
  for (const ReportRun& run : runs.runs()) {
    if (run.tier == v1::CPU_RAM || run.tier == v1::NVME) rows += OffloadRow(runs, run);
    simulated_disk =
        simulated_disk || (run.result->has_disk() && results::IsSimulated(*run.result));
  }
  if (rows.empty()) return "<p class=\"no-data\">no data: no CPU_RAM or NVME results</p>\n";
  return absl::StrCat("<div class=\"wide\"><table class=\"offload\">\n",
                      RunHeader(runs, {"tier",
                                       "concurrency",
                                       "LMCache lookup hit rate (%)",
                                       "lookup hit tokens",
                                       "lookup requested tokens",
                                       "evicted chunks",
                                       "chunks loaded",
                                       "L1 usage mean (%)",
                                       "L1 usage max (GB)",
                                       "L2 usage max (GB)",
                                       "L0&#8594;L1 load (GB/s)",
                                       "L0&#8594;L1 store (GB/s)",
                                       "L2 load (GB/s)",
                                       "L2 store (GB/s)",
                                       "disk",
                                       "disk read (GB/s)",
                                       "disk write (GB/s)",
                                       "read IOPS",
                                       "write IOPS",
                                       "read latency (ms)",
                                       "write latency (ms)",
                                       "disk utilization (%)",
                                       "queue depth"}),
                      rows, "</table></div>\n", simulated_disk ? kSimulatedDiskNote : "");
}

}  // namespace kvbench::report
