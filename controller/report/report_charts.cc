#include "controller/report/report_charts.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "controller/report/text_format.h"
#include "controller/report/tier_style.h"
#include "controller/results/metric_catalog.h"
#include "controller/results/simulated_time_display.h"

namespace kvbench::report {
namespace {

constexpr double kMsPerS = 1000;
constexpr double kPercent = 100;

std::optional<double> Ms(bool has, double seconds) {
  if (!has) return std::nullopt;
  return seconds * kMsPerS;
}

// A simulated run's times and rates are shown in simulated time (results::ShownLatency), and
// their units say so.
bool Simulated(const ReportRuns& runs) {
  return std::any_of(runs.runs().begin(), runs.runs().end(),
                     [](const ReportRun& run) { return results::IsSimulated(*run.result); });
}

std::string Unit(const ReportRuns& runs, const std::string& unit) {
  return Simulated(runs) ? absl::StrCat("simulated ", unit) : unit;
}

std::string Hover(const std::string& series, const std::string& where, double value,
                  const std::string& unit) {
  return absl::StrCat(series, ", ", where, ": ", FormatNumber(value), " ", unit);
}

ChartSeries TtftSeries(const ReportRuns& runs, v1::Tier tier, bool p95) {
  const TierStyle style = StyleOfTier(tier);
  ChartSeries series{absl::StrCat(style.name, p95 ? " p95" : " p50"),
                     style.color,
                     p95 ? LineStyle::kDashed : LineStyle::kSolid,
                     {}};
  for (int concurrency : runs.concurrencies()) {
    const v1::ScenarioResult* result = runs.Find(tier, concurrency);
    if (result == nullptr) continue;
    ChartPoint point{
        static_cast<double>(concurrency),
        results::ShownValue(results::MetricNamed(p95 ? "ttft_p95_s" : "ttft_p50_s"), *result), ""};
    if (point.y) {
      point.hover =
          Hover(series.name, absl::StrCat("concurrency ", concurrency), *point.y, Unit(runs, "ms"));
    }
    series.points.push_back(std::move(point));
  }
  return series;
}

// The series `name` of one result as points in %, or none.
ChartSeries TimeSeriesOf(const v1::ScenarioResult* result, const std::string& name,
                         const std::string& label, const std::string& color, LineStyle style) {
  ChartSeries series{label, color, style, {}};
  if (result == nullptr) return series;
  for (const v1::TimeSeries& sampled : result->series()) {
    if (sampled.name() != name) continue;
    const int size = std::min(sampled.t_s_size(), sampled.value_size());
    // Sampled in real seconds; a simulated run's are shown in simulated seconds.
    const double scale = results::IsSimulated(*result) ? result->sim_time_scale() : 1.0;
    const char* unit = results::IsSimulated(*result) ? " simulated s" : " s";
    for (int i = 0; i < size; ++i) {
      const double percent = sampled.value(i) * kPercent;
      const double t = sampled.t_s(i) / scale;
      series.points.push_back(
          {t, percent, Hover(label, absl::StrCat("t = ", FormatNumber(t), unit), percent, "%")});
    }
  }
  return series;
}

LineChartSpec OverTime(const ReportRuns& runs, const std::string& title,
                       const std::string& y_label) {
  LineChartSpec spec;
  spec.title = title + runs.title_suffix();
  spec.x_label = absl::StrCat("time since replay start (", Unit(runs, "s"), ")");
  spec.y_label = y_label;
  spec.y_max = kPercent;
  return spec;
}

// The catalog's metric `key` per tier and concurrency, in its shown unit.
BarChartSpec Throughput(const ReportRuns& runs, const std::string& title,
                        const std::string& y_label, const char* key) {
  const results::MetricInfo& metric = results::MetricNamed(key);
  const std::string unit = metric.unit;
  BarChartSpec spec{title + runs.title_suffix(),
                    "concurrency (virtual users)",
                    absl::StrCat(y_label, " (", Unit(runs, unit), ")"),
                    Unit(runs, unit),
                    {},
                    {}};
  for (int concurrency : runs.concurrencies()) {
    spec.categories.push_back(absl::StrCat("concurrency ", concurrency));
  }
  for (v1::Tier tier : runs.tiers()) {
    const TierStyle style = StyleOfTier(tier);
    BarSeries series{style.name, style.color, {}};
    for (int concurrency : runs.concurrencies()) {
      const v1::ScenarioResult* result = runs.Find(tier, concurrency);
      series.values.push_back(result == nullptr ? std::nullopt
                                                : results::ShownValue(metric, *result));
    }
    spec.series.push_back(std::move(series));
  }
  return spec;
}

}  // namespace

LineChartSpec TtftByConcurrencyChart(const ReportRuns& runs) {
  LineChartSpec spec;
  spec.title = "TTFT p50 and p95 by concurrency" + runs.title_suffix();
  spec.x_label = "concurrency (virtual users)";
  spec.y_label = absl::StrCat("TTFT (", Unit(runs, "ms"), ")");
  for (int concurrency : runs.concurrencies()) spec.x_ticks.push_back(concurrency);
  for (v1::Tier tier : runs.tiers()) {
    spec.series.push_back(TtftSeries(runs, tier, /*p95=*/false));
    spec.series.push_back(TtftSeries(runs, tier, /*p95=*/true));
  }
  return spec;
}

LineChartSpec TtftByRoundChart(const ReportRuns& runs, int concurrency) {
  LineChartSpec spec;
  spec.title = absl::StrCat("TTFT p50 per round, concurrency ", concurrency, runs.title_suffix());
  spec.x_label = "round (request index within a session)";
  spec.y_label = absl::StrCat("TTFT p50 (", Unit(runs, "ms"), ")");
  for (v1::Tier tier : runs.tiers()) {
    const TierStyle style = StyleOfTier(tier);
    ChartSeries series{style.name, style.color, LineStyle::kSolid, {}};
    if (const v1::ScenarioResult* result = runs.Find(tier, concurrency)) {
      for (const v1::RoundLatency& round : results::ShownLatency(*result).ttft_by_round()) {
        ChartPoint point{static_cast<double>(round.round()),
                         Ms(round.has_ttft_p50_s(), round.ttft_p50_s()), ""};
        if (point.y) {
          point.hover = Hover(
              style.name, absl::StrCat("round ", round.round(), " (", round.count(), " requests)"),
              *point.y, Unit(runs, "ms"));
          spec.x_ticks.push_back(round.round());
        }
        series.points.push_back(std::move(point));
      }
    }
    spec.series.push_back(std::move(series));
  }
  std::sort(spec.x_ticks.begin(), spec.x_ticks.end());
  spec.x_ticks.erase(std::unique(spec.x_ticks.begin(), spec.x_ticks.end()), spec.x_ticks.end());
  return spec;
}

LineChartSpec HitRateChart(const ReportRuns& runs, int concurrency) {
  LineChartSpec spec =
      OverTime(runs, absl::StrCat("Prefix-cache hit rate over time, concurrency ", concurrency),
               "hit rate (%)");
  for (v1::Tier tier : runs.tiers()) {
    const TierStyle style = StyleOfTier(tier);
    const v1::ScenarioResult* result = runs.Find(tier, concurrency);
    spec.series.push_back(TimeSeriesOf(result, kLocalHitRateSeries, style.name + " local",
                                       style.color, LineStyle::kSolid));
    spec.series.push_back(TimeSeriesOf(result, kExternalHitRateSeries, style.name + " external",
                                       style.color, LineStyle::kDashed));
  }
  return spec;
}

LineChartSpec KvCacheUsageChart(const ReportRuns& runs, int concurrency) {
  LineChartSpec spec =
      OverTime(runs, absl::StrCat("vLLM KV cache usage over time, concurrency ", concurrency),
               "KV cache usage (%)");
  for (v1::Tier tier : runs.tiers()) {
    const TierStyle style = StyleOfTier(tier);
    spec.series.push_back(TimeSeriesOf(runs.Find(tier, concurrency), kKvCacheUsageSeries,
                                       style.name, style.color, LineStyle::kSolid));
  }
  return spec;
}

BarChartSpec RequestsPerSecondChart(const ReportRuns& runs) {
  return Throughput(runs, "Throughput: requests per second", "throughput", "requests_per_s");
}

BarChartSpec OutputTokensPerSecondChart(const ReportRuns& runs) {
  return Throughput(runs, "Throughput: output tokens per second", "output throughput",
                    "output_tokens_per_s");
}

}  // namespace kvbench::report
