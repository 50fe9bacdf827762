#include "controller/kvctl/export/llmd_time_series.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "controller/kvctl/export/llmd_fields.h"

namespace kvbench::kvctl {
namespace {

// Each of the sampler's series: its units and its slot in TimeSeriesResourceMetrics (null: none,
// it goes under observability's `kvbench` keys).
struct SeriesSlot {
  const char* name;
  const char* units;
  const char* resource_field;
};

constexpr SeriesSlot kSeriesSlots[] = {
    {"kv_cache_usage", kLlmdUnitFraction, "kv_cache_usage"},  // replicas' mean per scrape
    {"local_hit_rate", kLlmdUnitFraction, nullptr},
    {"external_hit_rate", kLlmdUnitFraction, nullptr},
};

const SeriesSlot* SlotOf(const std::string& name) {
  for (const SeriesSlot& slot : kSeriesSlots) {
    if (name == slot.name) return &slot;
  }
  return nullptr;
}

}  // namespace

bool LlmdSeriesUndated(const v1::ScenarioResult& result) {
  return result.series_size() > 0 && result.replay_start_unix_ms() <= 0;
}

nlohmann::ordered_json LlmdTimeSeriesData(absl::string_view units, const v1::TimeSeries& series,
                                          int64_t replay_start_unix_ms) {
  nlohmann::ordered_json data;
  if (!units.empty()) data["units"] = std::string(units);
  nlohmann::ordered_json& points = data["series"] = nlohmann::ordered_json::array();
  const int size = std::min(series.t_s_size(), series.value_size());
  for (int i = 0; i < size; ++i) {
    if (!std::isfinite(series.value(i)) || !std::isfinite(series.t_s(i))) continue;
    nlohmann::ordered_json point;
    point["ts"] = LlmdTimestamp(replay_start_unix_ms + std::llround(series.t_s(i) * 1000.0));
    point["value"] = series.value(i);
    points.push_back(std::move(point));
  }
  return data;
}

nlohmann::ordered_json LlmdEngineTimeSeries(const v1::ScenarioResult& result) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (result.replay_start_unix_ms() <= 0) return out;
  for (const v1::TimeSeries& series : result.series()) {
    const SeriesSlot* slot = SlotOf(series.name());
    if (slot == nullptr || slot->resource_field == nullptr) continue;
    out[slot->resource_field] =
        LlmdTimeSeriesData(slot->units, series, result.replay_start_unix_ms());
  }
  return out;
}

nlohmann::ordered_json LlmdKvbenchTimeSeries(const v1::ScenarioResult& result) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (result.replay_start_unix_ms() <= 0) return out;
  for (const v1::TimeSeries& series : result.series()) {
    const SeriesSlot* slot = SlotOf(series.name());
    if (slot != nullptr && slot->resource_field != nullptr) continue;
    out[series.name()] = LlmdTimeSeriesData(slot != nullptr ? slot->units : "", series,
                                            result.replay_start_unix_ms());
  }
  return out;
}

}  // namespace kvbench::kvctl
