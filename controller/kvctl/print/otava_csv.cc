#include "controller/kvctl/print/otava_csv.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kvbench::kvctl {

std::string OtavaColumn(const report::HistorySeries& series) {
  const std::string cell = absl::StrCat(v1::Tier_Name(series.tier), ".c", series.concurrency);
  return series.agent_id.empty() ? cell : absl::StrCat(series.agent_id, ".", cell);
}

std::vector<std::string> PrintOtavaCsv(const report::History& history, std::ostream& out) {
  out << "time,job_id";
  for (const report::HistorySeries& series : history.series) out << "," << OtavaColumn(series);
  out << "\n";
  std::vector<std::string> left_out;
  for (size_t run = 0; run < history.runs.size(); ++run) {
    std::vector<std::string> missing;
    for (const report::HistorySeries& series : history.series) {
      if (!series.values[run].has_value()) missing.push_back(OtavaColumn(series));
    }
    if (!missing.empty()) {
      left_out.push_back(absl::StrCat(history.runs[run].job_id, " (no value for ",
                                      absl::StrJoin(missing, ", "), ")"));
      continue;
    }
    out << history.runs[run].fire_time << "," << history.runs[run].job_id;
    // The shortest text that reads back as the same double (what the JSON output prints).
    for (const report::HistorySeries& series : history.series) {
      out << "," << nlohmann::json(*series.values[run]).dump();
    }
    out << "\n";
  }
  return left_out;
}

}  // namespace kvbench::kvctl
