#pragma once

// A gauge's mean over a scenario's in-replay scrapes rests on as many scrapes as the replay was
// long in sampling periods: at concurrency 16 the demo's replay has 1 to 3. Where a
// mean of KV cache usage is shown, so is its count when it is small.

#include <string>

#include "absl/strings/str_cat.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// Fewer in-replay scrapes than this and a mean is shown with its count.
inline constexpr int kFewScrapes = 5;

// " (3 scrapes)" when EngineMetrics.kv_cache_usage_mean rests on fewer than kFewScrapes scrapes;
// "" when it rests on more, or when the count was not recorded (results of older builds).
inline std::string FewScrapesText(const v1::EngineMetrics& engine) {
  if (!engine.has_kv_cache_usage_scrapes() || engine.kv_cache_usage_scrapes() >= kFewScrapes) {
    return "";
  }
  const int n = engine.kv_cache_usage_scrapes();
  return absl::StrCat(" (", n, n == 1 ? " scrape)" : " scrapes)");
}

}  // namespace kvbench::results
