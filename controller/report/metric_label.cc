#include "controller/report/metric_label.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kvbench::report {
namespace {

// Words people write in capitals or otherwise than the field does.
std::string Word(absl::string_view word) {
  static const std::vector<std::pair<std::string, std::string>> kWords = {
      {"ttft", "TTFT"}, {"tpot", "TPOT"},       {"itl", "ITL"},      {"e2e", "end-to-end"},
      {"kv", "KV"},     {"lmcache", "LMCache"}, {"gpu", "GPU"},      {"cpu", "CPU"},
      {"l1", "L1"},     {"l2", "L2"},           {"gb", "GB"},        {"iops", "IOPS"},
      {"pct", ""},      {"perc", ""},           {"num", "number of"}};
  for (const auto& [from, to] : kWords) {
    if (word == from) return to;
  }
  return std::string(word);
}

// "ttft_p95" -> "TTFT p95"; the field's group ("latency.") goes.
std::string Words(absl::string_view field) {
  const size_t dot = field.rfind('.');
  if (dot != absl::string_view::npos) field.remove_prefix(dot + 1);
  std::vector<std::string> words;
  for (absl::string_view word : absl::StrSplit(field, '_', absl::SkipEmpty())) {
    std::string shown = Word(word);
    if (!shown.empty()) words.push_back(std::move(shown));
  }
  return absl::StrJoin(words, " ");
}

}  // namespace

std::string MetricLabel::AxisLabel() const {
  return unit.empty() ? name : absl::StrCat(name, " (", unit, ")");
}

MetricLabel LabelOfMetric(const std::string& field, bool simulated) {
  const std::string sim = simulated ? "simulated " : "";
  if (field == "capacity.users" || field == "capacity.low" || field == "capacity.high") {
    const std::string which = field == "capacity.users" ? "capacity"
                              : field == "capacity.low" ? "capacity, low end"
                                                        : "capacity, high end";
    return {which, "virtual users", 1};
  }
  absl::string_view name = field;
  if (absl::EndsWith(name, "_gb_per_s")) return {Words(name.substr(0, name.size() - 9)), "GB/s", 1};
  if (absl::ConsumeSuffix(&name, "_per_s")) {
    const std::string what = Words(name);
    const std::string unit = absl::StrContains(what, "token")     ? "tok/s"
                             : absl::StrContains(what, "request") ? "req/s"
                                                                  : absl::StrCat(what, " per s");
    return {absl::StrCat(what, " per second"), sim + unit, 1};
  }
  if (absl::ConsumeSuffix(&name, "_ms")) return {Words(name), sim + "ms", 1};
  if (absl::ConsumeSuffix(&name, "_s")) return {Words(name), sim + "ms", 1000};
  if (absl::EndsWith(name, "_pct") || absl::EndsWith(name, "_perc")) return {Words(name), "%", 1};
  // Fractions 0..1: hit rates, usage ratios, the KV cache usage.
  if (absl::EndsWith(name, "_rate") || absl::EndsWith(name, "_ratio") ||
      absl::EndsWith(name, "_ratio_mean") || absl::StrContains(name, "kv_cache_usage_m")) {
    return {Words(name), "%", 100};
  }
  if (absl::EndsWith(name, "_bytes") || absl::EndsWith(name, "_bytes_max")) {
    return {Words(name), "GB", 1e-9};
  }
  return {Words(name), "", 1};
}

}  // namespace kvbench::report
