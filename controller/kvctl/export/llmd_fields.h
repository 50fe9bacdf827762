#pragma once

// Small pieces the llm-d Benchmark Report v0.2.1 export shares (llmd_report.h): the schema's
// date-time and Statistics object, a probed component version, a proto message as JSON, and which
// of result.json's latency blocks the report reads.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json/proto_json.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::kvctl {

// The schema's units (its base.py: each field takes one family).
inline constexpr char kLlmdUnitCount[] = "count";
inline constexpr char kLlmdUnitFraction[] = "fraction";
inline constexpr char kLlmdUnitPercent[] = "percent";
inline constexpr char kLlmdUnitSeconds[] = "s";
inline constexpr char kLlmdUnitSecondsPerToken[] = "s/token";
inline constexpr char kLlmdUnitTokensPerSecond[] = "tokens/s";
inline constexpr char kLlmdUnitQueriesPerSecond[] = "queries/s";
inline constexpr char kLlmdUnitWatts[] = "Watts";
inline constexpr char kLlmdUnitBytes[] = "bytes";

// A time as the schema's date-time: ISO-8601 UTC with milliseconds, "2026-12-06T22:47:43.000Z".
inline std::string LlmdTimestamp(int64_t unix_ms) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::FromUnixMillis(unix_ms),
                          absl::UTCTimeZone());
}

// A Statistics object: units and mean (both required by the schema); callers add the
// percentiles kvbench has.
inline nlohmann::ordered_json LlmdStatistics(absl::string_view units, double mean) {
  nlohmann::ordered_json statistics;
  statistics["units"] = std::string(units);
  statistics["mean"] = mean;
  return statistics;
}

// The version kvbench probed for `component` ("vllm", "lmcache", "caddy", "kvbench"), as
// result.json's `versions` has it; "unknown" when it was not probed (the schema requires a
// string, and this one says so rather than guessing).
inline std::string LlmdComponentVersion(const v1::ScenarioResult& result,
                                        absl::string_view component) {
  for (const v1::ComponentVersion& version : result.versions()) {
    if (version.component() == component && !version.version().empty()) return version.version();
  }
  return "unknown";
}

// Whether result.json's `versions` marks `component` as a simulator (kvsim-vllm, kvsim-lmcache).
inline bool LlmdComponentSimulated(const v1::ScenarioResult& result, absl::string_view component) {
  for (const v1::ComponentVersion& version : result.versions()) {
    if (version.component() == component) return version.simulated();
  }
  return false;
}

// A proto message as result.json spells it (64-bit integers as strings).
inline nlohmann::ordered_json LlmdProtoJson(const google::protobuf::Message& message) {
  return nlohmann::ordered_json::parse(ProtoToJson(message));
}

// The latency block the report reads: `simulated_latency` on a simulated engine (what kvctl
// shows, in simulated time), else `latency`.
inline bool LlmdUsesSimulatedLatency(const v1::ScenarioResult& result) {
  return result.has_simulated_latency();
}
inline const v1::LatencyMetrics& LlmdLatency(const v1::ScenarioResult& result) {
  return LlmdUsesSimulatedLatency(result) ? result.simulated_latency() : result.latency();
}

}  // namespace kvbench::kvctl
