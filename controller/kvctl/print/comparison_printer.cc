#include "controller/kvctl/print/comparison_printer.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/kvctl/print/table_printer.h"
#include "controller/results/delta_text.h"

namespace kvbench::kvctl {
namespace {

constexpr char kNull[] = "-";

std::string VerdictName(v1::Verdict verdict) {
  return absl::AsciiStrToLower(v1::Verdict_Name(verdict).substr(sizeof("VERDICT_") - 1));
}

std::string Value(const results::ComparisonRow& row, const std::optional<double>& value) {
  if (!value.has_value()) return kNull;
  if (row.unit == "req/s") return absl::StrFormat("%.2f", *value);
  if (row.unit == "tok/s" || row.unit == "tok" || row.unit == "users") {
    return absl::StrFormat("%.0f", *value);
  }
  return absl::StrFormat("%.1f", *value);
}

}  // namespace

void PrintVerdict(const v1::Validity& validity, std::ostream& out) {
  out << "comparison " << validity.comparison_group() << ": " << VerdictName(validity.verdict())
      << "\n";
  for (const v1::ValidityReason& reason : validity.reasons()) {
    out << "  " << reason.code() << ": " << reason.message() << "\n";
  }
  for (const v1::ValidityReason& note : validity.notes()) {
    out << "  note " << note.code() << ": " << note.message() << "\n";
  }
}

void PrintComparison(const std::vector<results::ComparisonGroup>& groups, std::ostream& out) {
  for (const results::ComparisonGroup& group : groups) {
    out << "\nconcurrency " << group.concurrency << "\n";
    if (group.validity.has_value()) PrintVerdict(*group.validity, out);
    if (!group.time_note.empty()) out << group.time_note << "\n";
    if (!group.interval_note.empty()) out << group.interval_note << "\n";
    if (!group.scrape_note.empty()) out << group.scrape_note << "\n";
    for (const std::string& caveat : group.caveats) out << "caveat: " << caveat << "\n";
    std::vector<std::string> headers = {"METRIC"};
    for (size_t i = 0; i < group.columns.size(); ++i) {
      headers.push_back(v1::Tier_Name(group.columns[i].tier));
      if (group.baseline >= 0 && static_cast<int>(i) != group.baseline) headers.push_back("VS_GPU");
    }
    TablePrinter table(headers);
    for (const results::ComparisonRow& row : group.rows) {
      std::vector<std::string> cells = {
          absl::StrCat(row.metric, " (", results::ShownUnit(group, row, "sim "), ")")};
      for (size_t i = 0; i < group.columns.size(); ++i) {
        cells.push_back(Value(row, row.values[i]));
        if (group.baseline >= 0 && static_cast<int>(i) != group.baseline) {
          cells.push_back(results::DeltaText(row, i));
        }
      }
      table.AddRow(cells);
    }
    table.Print(out);
  }
}

nlohmann::ordered_json ComparisonJson(const std::vector<results::ComparisonGroup>& groups) {
  auto number = [](const std::optional<double>& value) {
    return value.has_value() ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
  };
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (const results::ComparisonGroup& group : groups) {
    nlohmann::ordered_json item;
    item["comparison_group"] = group.comparison_group;
    item["concurrency"] = group.concurrency;
    // Spelled as job.json spells it (one spelling in every machine output).
    item["verdict"] = group.validity.has_value()
                          ? nlohmann::ordered_json(v1::Verdict_Name(group.validity->verdict()))
                          : nlohmann::ordered_json(nullptr);
    item["reasons"] = nlohmann::ordered_json::array();
    if (group.validity.has_value()) {
      for (const v1::ValidityReason& reason : group.validity->reasons()) {
        item["reasons"].push_back({{"code", reason.code()}, {"message", reason.message()}});
      }
    }
    item["notes"] = nlohmann::ordered_json::array();
    if (group.validity.has_value()) {
      for (const v1::ValidityReason& note : group.validity->notes()) {
        item["notes"].push_back({{"code", note.code()}, {"message", note.message()}});
      }
    }
    item["tiers"] = nlohmann::ordered_json::array();
    for (const results::ComparisonColumn& column : group.columns) {
      const int runs = static_cast<int>(column.scenario_ids.size());
      item["tiers"].push_back(
          {{"tier", v1::Tier_Name(column.tier)},
           {"scenario_id", column.scenario_ids.empty() ? "" : column.scenario_ids.front()},
           {"scenario_ids", column.scenario_ids},
           {"succeeded", runs > 0 && column.succeeded == runs},
           {"succeeded_runs", column.succeeded}});
    }
    // Set when the time and rate values are in simulated seconds.
    item["time_note"] = group.time_note.empty() ? nlohmann::ordered_json(nullptr)
                                                : nlohmann::ordered_json(group.time_note);
    item["baseline"] = group.baseline >= 0 ? nlohmann::ordered_json("GPU") : nullptr;
    item["repeats"] = group.repeats;
    item["interval_note"] = group.interval_note;
    item["scrape_note"] = group.scrape_note;
    item["caveats"] = group.caveats;
    item["metrics"] = nlohmann::ordered_json::array();
    for (const results::ComparisonRow& row : group.rows) {
      nlohmann::ordered_json metric;
      metric["metric"] = row.metric;
      metric["unit"] = row.unit;
      metric["delta_unit"] = row.delta_kind == results::DeltaKind::kPercentagePoints ? "pp" : "%";
      metric["higher_is_better"] = row.higher_is_better;
      for (size_t i = 0; i < group.columns.size(); ++i) {
        const std::string tier = v1::Tier_Name(group.columns[i].tier);
        metric["values"][tier] = number(row.values[i]);
        if (static_cast<int>(i) == group.baseline) continue;
        metric["deltas"][tier] = number(row.deltas[i]);
        const std::optional<results::DeltaInterval>& interval = row.intervals[i];
        metric["intervals"][tier] =
            interval.has_value()
                ? nlohmann::ordered_json({{"low", interval->low}, {"high", interval->high}})
                : nlohmann::ordered_json(nullptr);
        // false: the interval holds 0 ("no clear difference"); null: no interval.
        metric["clear"][tier] = interval.has_value()
                                    ? nlohmann::ordered_json(!interval->ContainsZero())
                                    : nlohmann::ordered_json(nullptr);
      }
      item["metrics"].push_back(std::move(metric));
    }
    json.push_back(std::move(item));
  }
  return json;
}

}  // namespace kvbench::kvctl
