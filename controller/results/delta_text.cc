#include "controller/results/delta_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kvbench::results {
namespace {

std::string SignedInUnit(const ComparisonRow& row, double delta) {
  return row.delta_kind == DeltaKind::kPercentagePoints ? absl::StrFormat("%+.1f pp", delta)
                                                        : absl::StrFormat("%+.1f%%", delta);
}

}  // namespace

std::string DeltaText(const ComparisonRow& row, const std::optional<double>& delta,
                      const std::optional<DeltaInterval>& interval) {
  if (!delta.has_value()) return "-";
  if (!interval.has_value()) return SignedInUnit(row, *delta);
  const std::string bounds = absl::StrCat("[", SignedInUnit(row, interval->low), ", ",
                                          SignedInUnit(row, interval->high), "]");
  if (interval->ContainsZero()) return absl::StrCat("no clear difference ", bounds);
  return absl::StrCat(SignedInUnit(row, *delta), " ", bounds);
}

std::string DeltaText(const ComparisonRow& row, size_t column) {
  return DeltaText(row, column < row.deltas.size() ? row.deltas[column] : std::nullopt,
                   column < row.intervals.size() ? row.intervals[column] : std::nullopt);
}

std::string ShownUnit(const ComparisonGroup& group, const ComparisonRow& row,
                      const std::string& simulated_prefix) {
  const bool timed = row.unit == "ms" || row.unit == "req/s" || row.unit == "tok/s";
  return timed && !group.time_note.empty() ? absl::StrCat(simulated_prefix, row.unit) : row.unit;
}

}  // namespace kvbench::results
