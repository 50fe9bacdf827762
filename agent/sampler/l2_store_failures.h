#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kvbench::sampler {

// What LMCache's L2 adapter was asked to store over the replay and how much of it failed: a
// full NVMe pool fails every L2 store, and a scenario whose stores failed must not read as a
// success.
struct L2StoreCounts {
  int64_t submitted_chunks = 0;
  int64_t failed_chunks = 0;
};

// From the cache server's catalog values at each scrape of the replay, "before" first (a scrape
// that failed is absent from the list). Counters without a series yet count as 0 (LMCache's
// OpenTelemetry exporter shows a counter from its first increment); whether the server exports a
// counter at all is judged on the scrapes after the first, since the sampler fills the "before"
// scrape's missing counters with 0.
//  - Builds with lmcache_mp_l2_store_failed_keys_total (subscribers/metrics/l2.py@2ff265a2): its
//    increase.
//  - Builds without it (l2.py@0b5897e9): a failed store still completes its task
//    (lmcache_mp_l2_store_completed_requests_total) but adds no chunk to
//    lmcache_mp_l2_store_completed_objects_chunks_total, so failed = the growth of (submitted
//    chunks - stored chunks), taken at the last scrape with no store task in flight (submitted
//    tasks = completed tasks); chunks still in flight at the end are not counted as failed, so
//    this is a lower bound then, never a false alarm.
// nullopt when the server exports no submit counter (older builds) or there are < 2 scrapes.
std::optional<L2StoreCounts> CountL2StoreFailures(
    const std::vector<const std::map<std::string, double>*>& scrapes);

}  // namespace kvbench::sampler
