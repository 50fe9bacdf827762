#include "agent/sampler/metric_catalog.h"

#include <cmath>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kvbench::sampler {

const std::vector<CatalogEntry>& VllmCatalog() {
  static const auto* catalog = new std::vector<CatalogEntry>{
      {keys::kPrefixHits, {"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"}},
      {keys::kPrefixQueries,
       {"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"}},
      {keys::kExternalHits, {"vllm:external_prefix_cache_hits_total"}},
      {keys::kExternalQueries, {"vllm:external_prefix_cache_queries_total"}},
      {keys::kKvCacheUsage, {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}},
      {keys::kPreemptions, {"vllm:num_preemptions_total", "vllm:num_preemptions"}},
      {keys::kPrefillTime, {"vllm:request_prefill_time_seconds"}, true},
      {keys::kQueueTime, {"vllm:request_queue_time_seconds"}, true},
      {keys::kSimStepLateness, {"kvsim:step_lateness_seconds"}, true, /*buckets=*/true},
  };
  return *catalog;
}

const std::vector<CatalogEntry>& LmcacheCatalog() {
  // LMCache's throughput histograms: the newest instruments are "lmcache_mp.l2_store_throughput"
  // with unit "GB/s", exported as *_throughput_GB_per_second; an older generation named them
  // "..._throughput_gbs" with the same unit (LMCache/LMCache:lmcache/v1/mp_observability/
  // subscribers/metrics/l0_l1_throughput.py@5992904e, l2_throughput.py@00969dae), which the OTel
  // Prometheus exporter turns into *_throughput_gbs_GB_per_second (the unit appended after
  // mapping "GB/s" to "GB_per_second", opentelemetry-exporter-prometheus _mapping.py). A bare
  // *_gbs was never exported by any build.
  static const auto* catalog = new std::vector<CatalogEntry>{
      {keys::kLookupRequested, {"lmcache_mp_lookup_requested_tokens_total"}},
      {keys::kLookupHit, {"lmcache_mp_lookup_hit_tokens_total"}},
      // Older builds named L1 evictions by keys.
      {keys::kEvictedChunks,
       {"lmcache_mp_l1_evicted_chunks_total", "lmcache_mp_l1_evicted_keys_total"}},
      {keys::kL1UsageRatio, {"lmcache_mp_l1_usage_ratio"}},
      {keys::kL1UsageBytes, {"lmcache_mp_l1_memory_usage_bytes"}},
      {keys::kL2UsageBytes, {"lmcache_mp_l2_usage_bytes"}},
      {keys::kEvictionTicks, {"lmcache_mp_l1_eviction_loop_ticks_total"}},
      {keys::kEvictionTriggered, {"lmcache_mp_l1_eviction_loop_triggered_total"}},
      {keys::kL0L1Load,
       {"lmcache_mp_l0_l1_load_throughput_GB_per_second",
        "lmcache_mp_l0_l1_load_throughput_gbs_GB_per_second"},
       true},
      {keys::kL0L1Store,
       {"lmcache_mp_l0_l1_store_throughput_GB_per_second",
        "lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second"},
       true},
      {keys::kL2Load,
       {"lmcache_mp_l2_load_throughput_GB_per_second",
        "lmcache_mp_l2_load_throughput_gbs_GB_per_second"},
       true},
      {keys::kL2Store,
       {"lmcache_mp_l2_store_throughput_GB_per_second",
        "lmcache_mp_l2_store_throughput_gbs_GB_per_second"},
       true},
      {keys::kChunksLoaded, {"lmcache_mp_num_chunks_loaded_total"}},
      // EventBus self-metrics: events dropped when its queue was full
      // (mp_observability/subscribers/metrics/event_bus.py@1e64c026).
      {keys::kDroppedEvents, {"lmcache_mp_event_bus_dropped_events_total"}},
      // L2 chunk counters (subscribers/metrics/l2.py@0b5897e9): loaded, stored, evicted.
      {keys::kL2LoadedChunks, {"lmcache_mp_l2_prefetch_load_completed_chunks_total"}},
      {keys::kL2StoredChunks,
       {"lmcache_mp_l2_store_completed_objects_chunks_total",
        "lmcache_mp_l2_store_succeeded_keys_total"}},
      {keys::kL2EvictedChunks, {"lmcache_mp_l2_evicted_objects_chunks_total"}},
      // L2 store submissions and failures: the names of l2.py@0b5897e9, then those
      // of the generation with a failure counter (l2.py@2ff265a2; l2_store_failures.h).
      {keys::kL2SubmittedChunks,
       {"lmcache_mp_l2_store_submitted_objects_chunks_total", "lmcache_mp_l2_store_keys_total"}},
      {keys::kL2SubmittedRequests,
       {"lmcache_mp_l2_store_submitted_requests_total", "lmcache_mp_l2_store_tasks_total"}},
      {keys::kL2CompletedRequests,
       {"lmcache_mp_l2_store_completed_requests_total", "lmcache_mp_l2_store_completed_total"}},
      {keys::kL2StoreFailedChunks, {"lmcache_mp_l2_store_failed_keys_total"}},
  };
  return *catalog;
}

std::string BucketKey(const std::string& key, double upper_bound) {
  const std::string bound = std::isinf(upper_bound) ? "+Inf" : absl::StrCat(upper_bound);
  return absl::StrCat(key, "_bucket{le=\"", bound, "\"}");
}

std::optional<double> BucketBound(const std::string& key, const std::string& sample_key) {
  const std::string prefix = absl::StrCat(key, "_bucket{le=\"");
  if (!absl::StartsWith(sample_key, prefix) || !absl::EndsWith(sample_key, "\"}")) {
    return std::nullopt;
  }
  const absl::string_view bound =
      absl::string_view(sample_key).substr(prefix.size(), sample_key.size() - prefix.size() - 2);
  if (bound == "+Inf") return std::numeric_limits<double>::infinity();
  double value = 0;
  if (!absl::SimpleAtod(bound, &value)) return std::nullopt;
  return value;
}

bool IsCounter(const CatalogEntry& entry) {
  return !entry.histogram && absl::EndsWith(entry.key, "_total");
}

std::vector<std::pair<std::string, double>> SelectValues(
    const prometheus_text::Exposition& exposition, const std::vector<CatalogEntry>& catalog) {
  std::vector<std::pair<std::string, double>> values;
  for (const CatalogEntry& entry : catalog) {
    if (entry.histogram) {
      std::optional<prometheus_text::Histogram> histogram =
          prometheus_text::SumHistogram(exposition, {entry.names, {}});
      if (histogram) {
        values.emplace_back(absl::StrCat(entry.key, "_sum"), histogram->sum);
        values.emplace_back(absl::StrCat(entry.key, "_count"), histogram->count);
        if (entry.buckets) {
          for (const auto& [bound, count] : histogram->buckets) {
            values.emplace_back(BucketKey(entry.key, bound), count);
          }
        }
      }
      continue;
    }
    if (std::optional<double> sum = prometheus_text::Sum(exposition, {entry.names, {}})) {
      values.emplace_back(entry.key, *sum);
    }
  }
  for (const prometheus_text::Sample& sample : exposition.samples) {
    if (sample.name != "vllm:cache_config_info") continue;
    double number = 0;
    if (auto blocks = sample.Label("num_gpu_blocks");
        blocks && absl::SimpleAtod(*blocks, &number)) {
      values.emplace_back(keys::kNumGpuBlocks, number);
    }
    if (auto size = sample.Label("block_size"); size && absl::SimpleAtod(*size, &number)) {
      values.emplace_back(keys::kBlockSize, number);
    }
    break;
  }
  return values;
}

}  // namespace kvbench::sampler
