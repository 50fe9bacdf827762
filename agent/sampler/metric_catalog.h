#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/prometheus/exposition.h"

namespace kvbench::sampler {

// What the sampler keeps of a scrape: each entry's value (summed over the source's label sets:
// engines, models) is stored under `key` in the Sample event and samples.jsonl. `names` lists
// the metric's names across versions, newest first (reference/vllm.md §2, lmcache.md §3).
// Histograms are stored as `<key>_sum` and `<key>_count`, and with `buckets` also each bucket's
// cumulative count as `<key>_bucket{le="<bound>"}` (bounds as Prometheus writes them: "0.005",
// "+Inf").
struct CatalogEntry {
  std::string key;
  std::vector<std::string> names;
  bool histogram = false;
  bool buckets = false;
};

// True for a counter's entry (its key ends in "_total"): what LMCache leaves out of /metrics
// until its first increment.
bool IsCounter(const CatalogEntry& entry);

// vLLM's /metrics (per replica).
const std::vector<CatalogEntry>& VllmCatalog();
// LMCache's /metrics (the cache server).
const std::vector<CatalogEntry>& LmcacheCatalog();

// Keys of the entries the sampler's math reads.
// vLLM's four prefix-cache counters count tokens: "Prefix cache queries, in terms of number of
// queried tokens" / "hits, in terms of number of cached tokens", and the same from the KV
// connector for the external_* pair (vllm-project/vllm vllm/v1/metrics/loggers.py,
// PrometheusStatLogger). vLLM records each request's local and connector figures once, when the
// request is admitted (vllm/v1/core/sched/scheduler.py@00024d314514900f361ad072af6931e403b7f589,
// after allocate_slots succeeds), so their increases are the work the replay looked up / was
// served, however long requests queued.
namespace keys {
inline constexpr char kPrefixHits[] = "vllm:prefix_cache_hits_total";
inline constexpr char kPrefixQueries[] = "vllm:prefix_cache_queries_total";
inline constexpr char kExternalHits[] = "vllm:external_prefix_cache_hits_total";
inline constexpr char kExternalQueries[] = "vllm:external_prefix_cache_queries_total";
inline constexpr char kKvCacheUsage[] = "vllm:kv_cache_usage_perc";
inline constexpr char kPreemptions[] = "vllm:num_preemptions_total";
inline constexpr char kPrefillTime[] = "vllm:request_prefill_time_seconds";
inline constexpr char kQueueTime[] = "vllm:request_queue_time_seconds";
// kvsim-vllm's own: how late its engine steps went out, real seconds (vllm_metrics.h).
inline constexpr char kSimStepLateness[] = "kvsim:step_lateness_seconds";
inline constexpr char kNumGpuBlocks[] = "vllm:cache_config_info:num_gpu_blocks";
inline constexpr char kBlockSize[] = "vllm:cache_config_info:block_size";
inline constexpr char kLookupRequested[] = "lmcache_mp_lookup_requested_tokens_total";
inline constexpr char kLookupHit[] = "lmcache_mp_lookup_hit_tokens_total";
inline constexpr char kEvictedChunks[] = "lmcache_mp_l1_evicted_chunks_total";
inline constexpr char kL1UsageRatio[] = "lmcache_mp_l1_usage_ratio";
inline constexpr char kL1UsageBytes[] = "lmcache_mp_l1_memory_usage_bytes";
inline constexpr char kL2UsageBytes[] = "lmcache_mp_l2_usage_bytes";
inline constexpr char kEvictionTicks[] = "lmcache_mp_l1_eviction_loop_ticks_total";
inline constexpr char kEvictionTriggered[] = "lmcache_mp_l1_eviction_loop_triggered_total";
inline constexpr char kL0L1Load[] = "lmcache_mp_l0_l1_load_throughput_GB_per_second";
inline constexpr char kL0L1Store[] = "lmcache_mp_l0_l1_store_throughput_GB_per_second";
inline constexpr char kL2Load[] = "lmcache_mp_l2_load_throughput_GB_per_second";
inline constexpr char kL2Store[] = "lmcache_mp_l2_store_throughput_GB_per_second";
inline constexpr char kChunksLoaded[] = "lmcache_mp_num_chunks_loaded_total";
inline constexpr char kDroppedEvents[] = "lmcache_mp_event_bus_dropped_events_total";
inline constexpr char kL2LoadedChunks[] = "lmcache_mp_l2_prefetch_load_completed_chunks_total";
inline constexpr char kL2StoredChunks[] = "lmcache_mp_l2_store_completed_objects_chunks_total";
inline constexpr char kL2EvictedChunks[] = "lmcache_mp_l2_evicted_objects_chunks_total";
inline constexpr char kL2SubmittedChunks[] = "lmcache_mp_l2_store_submitted_objects_chunks_total";
inline constexpr char kL2SubmittedRequests[] = "lmcache_mp_l2_store_submitted_requests_total";
inline constexpr char kL2CompletedRequests[] = "lmcache_mp_l2_store_completed_requests_total";
inline constexpr char kL2StoreFailedChunks[] = "lmcache_mp_l2_store_failed_keys_total";
}  // namespace keys

// `<key>_bucket{le="<bound>"}`: the sample key of one bucket of a histogram entry with buckets.
std::string BucketKey(const std::string& key, double upper_bound);
// The upper bound of `sample_key` when it is a BucketKey of `key`; nullopt otherwise.
std::optional<double> BucketBound(const std::string& key, const std::string& sample_key);

// The catalog's values of one scrape: key → value for every entry present (absent stays absent),
// histograms as key_sum/key_count, and vllm:cache_config_info's num_gpu_blocks and block_size
// labels as numbers.
std::vector<std::pair<std::string, double>> SelectValues(
    const prometheus_text::Exposition& exposition, const std::vector<CatalogEntry>& catalog);

}  // namespace kvbench::sampler
