#pragma once

// Warnings a scenario's result carries (ScenarioResult.warnings): pure decisions, table-tested.

#include <optional>
#include <string>
#include <vector>

#include "kvbench/v1/result.pb.h"

namespace kvbench::agent {

// Warning codes (ResultWarning.code), stable for programs.
inline constexpr char kCacheServerMetricsUnavailable[] = "cache_server_metrics_unavailable";
inline constexpr char kNvmeReadsNotFromDisk[] = "nvme_reads_not_from_disk";

// Below this share of L2's load bytes read from the pool's device, the NVME tier's L2 hits were
// served mostly from the page cache: the tier then measures CPU RAM under another name.
// Half leaves room for readahead misses and metadata either way; a disk that served the loads
// reads about all of them (or more, with readahead), a warm page cache nearly none.
inline constexpr double kMinDiskReadShare = 0.5;

// When the cache server's /metrics never answered during the replay (none of `tried` worked, or
// every scrape failed): every LMCache figure of the result is null for that reason, not zero.
// nullopt with at least one successful scrape.
std::optional<v1::ResultWarning> CacheServerMetricsWarning(int successful_scrapes,
                                                           const std::string& tried);

// The NVME disk check: warns when the pool's device read less than
// kMinDiskReadShare of what LMCache loaded from L2 over the replay. `l2_bytes_scale` is real
// disk bytes per L2 byte (1 for LMCache; kvsim-lmcache writes files scaled by
// --sim-l2-bytes-scale). nullopt when either figure is missing or nothing was loaded from L2.
std::optional<v1::ResultWarning> NvmeReadsWarning(const v1::LmcacheMetrics& lmcache,
                                                  const v1::DiskMetrics& disk,
                                                  double l2_bytes_scale);

// Every warning of the result of a scenario with a cache server, in order: the metrics check
// (CacheServerMetricsWarning) and, for NVME, the disk check (NvmeReadsWarning over the result's
// lmcache and disk figures).
std::vector<v1::ResultWarning> CacheServerWarnings(const v1::ScenarioResult& result, v1::Tier tier,
                                                   int successful_scrapes, const std::string& tried,
                                                   double l2_bytes_scale);

}  // namespace kvbench::agent
