#include "controller/kvctl/print/capacity_printer.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/json/proto_json.h"
#include "controller/kvctl/print/table_printer.h"
#include "controller/results/metric_catalog.h"

namespace kvbench::kvctl {
namespace {

// "TTFT p95" for "ttft_p95_s".
std::string MetricLabel(const std::string& key) {
  const results::MetricInfo* metric = results::FindMetric(key);
  return metric != nullptr ? metric->label : key;
}

std::string Milliseconds(double seconds) { return absl::StrFormat("%.0f", seconds * 1e3); }

// "212 ms [180, 251] ≤ 2000" or "212 ms (too few virtual users to resample) ≤ 2000".
std::string MeasureText(const v1::SloMeasure& measure) {
  std::string text = absl::StrCat(MetricLabel(measure.metric()), " ");
  if (measure.has_value_s()) {
    absl::StrAppend(&text, Milliseconds(measure.value_s()), " ms");
  } else {
    absl::StrAppend(&text, "-");
  }
  if (measure.has_low_s() && measure.has_high_s()) {
    absl::StrAppend(&text, " [", Milliseconds(measure.low_s()), ", ",
                    Milliseconds(measure.high_s()), "]");
  } else if (!measure.note().empty()) {
    absl::StrAppend(&text, " (", measure.note(), ")");
  }
  absl::StrAppend(&text, " vs ", Milliseconds(measure.target_s()));
  return text;
}

}  // namespace

void PrintCapacity(const v1::CapacityReport& report, std::ostream& out) {
  if (!HasCapacity(report)) return;
  out << report.headline() << "\n";
  if (!report.offload_note().empty()) out << "  note: " << report.offload_note() << "\n";
  out << "  capacity: the most concurrent users whose SLO metrics' 95% intervals lie under the "
         "target; [low, high]: where the true one lies (met at low, missed above high)\n\n";
  TablePrinter table(
      {"TIER", "USERS", "REPEATS", "OUTCOME", "SLO METRICS, ms [95% interval] vs target"});
  for (const v1::TierCapacity& tier : report.tiers()) {
    for (const v1::CapacityProbe& probe : tier.probes()) {
      std::string measures;
      for (const v1::SloMeasure& measure : probe.measures()) {
        if (!measures.empty()) measures += "; ";
        measures += MeasureText(measure);
      }
      table.AddRow({v1::Tier_Name(tier.tier()), absl::StrCat(probe.concurrency()),
                    absl::StrCat(probe.repeats()), probe.outcome(), measures});
    }
  }
  table.Print(out);
  for (const v1::TierCapacity& tier : report.tiers()) {
    out << "  " << v1::Tier_Name(tier.tier()) << ": " << tier.reason() << "\n";
  }
  out << "\n";
}

nlohmann::ordered_json CapacityJson(const v1::CapacityReport& report) {
  if (!HasCapacity(report)) return nullptr;
  return nlohmann::ordered_json::parse(ProtoToJson(report));
}

}  // namespace kvbench::kvctl
