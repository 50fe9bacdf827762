#include "controller/analysis/analysis_settings.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

namespace kvbench::controller {
namespace {

absl::Status OutOfRange(const char* field, double value, const char* range) {
  return absl::InvalidArgumentError(
      absl::StrCat("regression.", field, " is ", value, "; it must be ", range));
}

}  // namespace

absl::StatusOr<AnalysisSettings> AnalysisSettingsFromConfig(const v1::RegressionConfig& config) {
  AnalysisSettings settings;
  if (config.has_band_pct()) {
    if (!(config.band_pct() > 0 && config.band_pct() <= 100)) {
      return OutOfRange("band_pct", config.band_pct(), "in (0, 100]");
    }
    settings.diff.band = config.band_pct();
  }
  if (config.has_confidence()) {
    if (!(config.confidence() >= 0.5 && config.confidence() < 1)) {
      return OutOfRange("confidence", config.confidence(), "in [0.5, 1)");
    }
    settings.diff.confidence = config.confidence();
  }
  if (config.has_resamples()) {
    if (config.resamples() < 100 || config.resamples() > 100000) {
      return OutOfRange("resamples", config.resamples(), "in [100, 100000]");
    }
    settings.diff.resamples = config.resamples();
  }
  if (config.has_change_point_alpha()) {
    if (!(config.change_point_alpha() > 0 && config.change_point_alpha() < 0.5)) {
      return OutOfRange("change_point_alpha", config.change_point_alpha(), "in (0, 0.5)");
    }
    settings.change_points.alpha = config.change_point_alpha();
    // Enough permutations to resolve p-values well below alpha.
    settings.change_points.permutations = std::max(
        regression::kDefaultPermutations, static_cast<int>(5.0 / config.change_point_alpha()) - 1);
  }
  if (config.has_min_magnitude_pct()) {
    if (!(config.min_magnitude_pct() >= 0 && config.min_magnitude_pct() <= 1000)) {
      return OutOfRange("min_magnitude_pct", config.min_magnitude_pct(), "in [0, 1000]");
    }
    settings.change_points.min_magnitude_pct = config.min_magnitude_pct();
  }
  if (config.has_min_segment_runs()) {
    if (config.min_segment_runs() < 2 || config.min_segment_runs() > 50) {
      return OutOfRange("min_segment_runs", config.min_segment_runs(), "in [2, 50]");
    }
    settings.change_points.min_segment = config.min_segment_runs();
  }
  if (config.has_history_runs()) {
    if (config.history_runs() < 4 || config.history_runs() > 1000) {
      return OutOfRange("history_runs", config.history_runs(), "in [4, 1000]");
    }
    settings.history_runs = config.history_runs();
  }
  if (config.has_baseline_runs()) {
    if (config.baseline_runs() < 1 || config.baseline_runs() > 100) {
      return OutOfRange("baseline_runs", config.baseline_runs(), "in [1, 100]");
    }
    settings.baseline_runs = config.baseline_runs();
  }
  if (!config.alert_metrics().empty()) {
    settings.alert_metrics.clear();
    for (const std::string& key : config.alert_metrics()) {
      std::optional<regression::RegressionMetric> metric = regression::RegressionMetricFromKey(key);
      if (!metric) {
        std::string known;
        for (const auto& info : regression::AllRegressionMetrics()) {
          absl::StrAppend(&known, known.empty() ? "" : ", ", info.key);
        }
        return absl::InvalidArgumentError(absl::StrCat("regression.alert_metrics names \"", key,
                                                       "\", not a metric; one of: ", known));
      }
      settings.alert_metrics.push_back(*metric);
    }
  }
  return settings;
}

}  // namespace kvbench::controller
