#pragma once

// The time series of an llm-d Benchmark Report v0.2.1 (llmd_report.h): result.json's `series`
// (the sampler's: agent/sampler/sampler.h Series()) as the schema's TimeSeriesData, each point
// at the wall-clock instant replay_start_unix_ms + t_s, to the millisecond. A result without
// replay_start_unix_ms (an agent's from before it) gives none: no start is invented.

#include <cstdint>
#include <nlohmann/json.hpp>

#include "absl/strings/string_view.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::kvctl {

// Whether `result` has series that cannot be dated (no replay_start_unix_ms): the export leaves
// them out and says so.
bool LlmdSeriesUndated(const v1::ScenarioResult& result);

// One series as TimeSeriesData: {"units": units, "series": [{"ts", "value"}, ...]}, ts the ISO
// date-time of replay_start_unix_ms + round(t_s x 1000) ms. A non-finite value (none of the
// sampler's) is left out rather than written as null.
nlohmann::ordered_json LlmdTimeSeriesData(absl::string_view units, const v1::TimeSeries& series,
                                          int64_t replay_start_unix_ms);

// The vLLM replicas' TimeSeriesResourceMetrics (components[] `vllm`, the replicas together):
// `kv_cache_usage` (fraction, as its aggregate). Empty when there is none to date.
nlohmann::ordered_json LlmdEngineTimeSeries(const v1::ScenarioResult& result);

// The series the schema has no slot for (its resource metrics have no hit rate), by name, for
// observability's `kvbench` keys: `local_hit_rate`, `external_hit_rate` (fraction); a series
// this export does not know goes there too, without units. Empty when there is none to date.
nlohmann::ordered_json LlmdKvbenchTimeSeries(const v1::ScenarioResult& result);

}  // namespace kvbench::kvctl
