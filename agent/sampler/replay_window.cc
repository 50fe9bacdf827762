#include "agent/sampler/replay_window.h"

#include <algorithm>

namespace kvbench::sampler {

ScrapeKind ParseScrapeKind(std::string_view kind) {
  if (kind == "before") return ScrapeKind::kBefore;
  if (kind == "periodic") return ScrapeKind::kPeriodic;
  if (kind == "after") return ScrapeKind::kAfter;
  return ScrapeKind::kOther;
}

std::optional<ScrapeSpan> ReplaySpan(const std::vector<ScrapeKind>& kinds) {
  if (kinds.empty()) return std::nullopt;
  ScrapeSpan span{0, kinds.size() - 1};
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i] == ScrapeKind::kBefore) span.first = i;
  }
  for (std::size_t i = span.first; i < kinds.size(); ++i) {
    if (kinds[i] == ScrapeKind::kAfter) {
      span.last = i;
      break;
    }
  }
  return span;
}

std::vector<bool> InReplayScrapes(const std::vector<ScrapeKind>& kinds) {
  std::vector<bool> in_replay(kinds.size(), false);
  const std::optional<ScrapeSpan> span = ReplaySpan(kinds);
  if (!span) return in_replay;
  for (std::size_t i = span->first; i <= span->last; ++i) {
    in_replay[i] = kinds[i] == ScrapeKind::kPeriodic;
  }
  return in_replay;
}

GaugeSummary SummarizeInReplay(const std::vector<GaugeScrape>& scrapes,
                               std::optional<double> last_response_s) {
  std::vector<ScrapeKind> kinds;
  for (const GaugeScrape& scrape : scrapes) kinds.push_back(scrape.kind);
  const std::vector<bool> in_replay = InReplayScrapes(kinds);
  GaugeSummary summary;
  double sum_of_means = 0;
  int counted = 0;
  for (std::size_t i = 0; i < scrapes.size(); ++i) {
    const std::vector<double>& values = scrapes[i].values;
    if (!in_replay[i] || values.empty()) continue;
    if (last_response_s && scrapes[i].t_s > *last_response_s) continue;
    double sum = 0;
    for (double value : values) sum += value;
    const double mean = sum / static_cast<double>(values.size());
    sum_of_means += mean;
    summary.series.push_back({scrapes[i].t_s, mean});
    ++counted;
    const double highest = *std::max_element(values.begin(), values.end());
    summary.max = summary.max ? std::max(*summary.max, highest) : highest;
  }
  if (counted > 0) summary.mean = sum_of_means / counted;
  summary.scrapes = counted;
  return summary;
}

std::optional<double> SummedIncrease(const std::vector<std::vector<Point>>& replicas) {
  std::optional<double> total;
  for (const std::vector<Point>& points : replicas) {
    if (const std::optional<double> increase = CounterIncrease(points)) {
      total = total.value_or(0) + *increase;
    }
  }
  return total;
}

}  // namespace kvbench::sampler
