#include "agent/sim/lmcache/lmcache_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/text_serializer.h>

namespace kvbench::sim::lmcache {
namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;

// GB/s buckets wide enough for a page-cache hit (tens of GB/s) and a slow disk (< 1 GB/s).
const Histogram::BucketBoundaries& ThroughputBuckets() {
  static const Histogram::BucketBoundaries buckets = {0.05, 0.1, 0.25, 0.5, 1,  2,
                                                      4,    8,   16,   32,  64, 128};
  return buckets;
}

double GbPerSecond(int64_t bytes, absl::Duration time) {
  return static_cast<double>(bytes) / absl::ToDoubleSeconds(time) / 1e9;
}

}  // namespace

struct LmcacheMetrics::Families {
  explicit Families(prometheus::Registry& r)
      : l1_usage_ratio(prometheus::BuildGauge()
                           .Name("lmcache_mp_l1_usage_ratio")
                           .Help("L1 pool usage, used bytes / capacity (0-1)")
                           .Register(r)
                           .Add({})),
        l1_memory_usage_bytes(prometheus::BuildGauge()
                                  .Name("lmcache_mp_l1_memory_usage_bytes")
                                  .Help("Bytes of KV held in the L1 pool")
                                  .Register(r)
                                  .Add({})),
        l2_usage_bytes(Gauges(r, "lmcache_mp_l2_usage_bytes", "Bytes of KV held in L2")),
        ticks(Plain(r, "lmcache_mp_l1_eviction_loop_ticks_total", "Eviction loop ticks (~1 Hz)")),
        triggered(Plain(r, "lmcache_mp_l1_eviction_loop_triggered_total",
                        "Eviction loop ticks that found usage at or above the watermark")),
        evicted_chunks(Plain(r, "lmcache_mp_l1_evicted_chunks_total", "Chunks evicted from L1")),
        read_chunks(Plain(r, "lmcache_mp_l1_read_chunks_total", "Chunks read from L1")),
        write_chunks(Plain(r, "lmcache_mp_l1_write_chunks_total", "Chunks written into L1")),
        allocation_failures(Plain(r, "lmcache_mp_l1_allocation_failure_total",
                                  "Chunks dropped because L1 had no room for them")),
        sync_evictions(Plain(r, "kvsim_lmcache_l1_sync_evictions_total",
                             "Writes that evicted synchronously because L1 was full")),
        l2_store_requests(Counters(r, "lmcache_mp_l2_store_completed_requests_total",
                                   "L2 store batches completed")),
        l2_store_chunks(Counters(r, "lmcache_mp_l2_store_completed_objects_chunks_total",
                                 "Chunks stored into L2")),
        l2_load_requests(Counters(r, "lmcache_mp_l2_load_completed_requests_total",
                                  "L2 load batches completed")),
        l2_evicted_chunks(
            Counters(r, "lmcache_mp_l2_evicted_objects_chunks_total", "Chunks evicted from L2")),
        chunks_loaded(
            Counters(r, "lmcache_mp_num_chunks_loaded_total", "Chunks loaded into the engine")),
        requested_tokens(Counters(r, "lmcache_mp_lookup_requested_tokens_total",
                                  "Chunk-aligned tokens looked up")),
        hit_tokens(Counters(r, "lmcache_mp_lookup_hit_tokens_total",
                            "Tokens of the contiguous prefix found in L1 or L2")),
        hit_l1_tokens(Plain(r, "lmcache_mp_lookup_hit_l1_tokens_total", "Hit tokens in L1")),
        hit_l2_tokens(Plain(r, "lmcache_mp_lookup_hit_l2_tokens_total", "Hit tokens only in L2")),
        hit_l1_keys(Plain(r, "lmcache_mp_lookup_hit_l1_keys_total", "Hit chunks in L1")),
        hit_l2_keys(Plain(r, "lmcache_mp_lookup_hit_l2_keys_total", "Hit chunks only in L2")),
        lookups(Plain(r, "lmcache_mp_lookups_requests_total", "Lookup requests")),
        l0_l1_store(Histograms(r, "lmcache_mp_l0_l1_store_throughput_GB_per_second",
                               "L0 -> L1 store throughput (modeled PCIe), GB/s")),
        l0_l1_load(Histograms(r, "lmcache_mp_l0_l1_load_throughput_GB_per_second",
                              "L1 -> L0 load throughput (modeled PCIe), GB/s")),
        l2_store(Histograms(r, "lmcache_mp_l2_store_throughput_GB_per_second",
                            "L1 -> L2 store throughput (measured, sampled), GB/s")),
        l2_load(Histograms(r, "lmcache_mp_l2_load_throughput_GB_per_second",
                           "L2 -> L1 load throughput (measured, sampled), GB/s")) {}

  static Family<Counter>& Counters(prometheus::Registry& r, const std::string& name,
                                   const std::string& help) {
    return prometheus::BuildCounter().Name(name).Help(help).Register(r);
  }
  static Counter& Plain(prometheus::Registry& r, const std::string& name, const std::string& help) {
    return Counters(r, name, help).Add({});
  }
  static Family<Gauge>& Gauges(prometheus::Registry& r, const std::string& name,
                               const std::string& help) {
    return prometheus::BuildGauge().Name(name).Help(help).Register(r);
  }
  static Family<Histogram>& Histograms(prometheus::Registry& r, const std::string& name,
                                       const std::string& help) {
    return prometheus::BuildHistogram().Name(name).Help(help).Register(r);
  }

  Gauge& l1_usage_ratio;
  Gauge& l1_memory_usage_bytes;
  Family<Gauge>& l2_usage_bytes;
  Counter& ticks;
  Counter& triggered;
  Counter& evicted_chunks;
  Counter& read_chunks;
  Counter& write_chunks;
  Counter& allocation_failures;
  Counter& sync_evictions;
  Family<Counter>& l2_store_requests;
  Family<Counter>& l2_store_chunks;
  Family<Counter>& l2_load_requests;
  Family<Counter>& l2_evicted_chunks;
  Family<Counter>& chunks_loaded;
  Family<Counter>& requested_tokens;
  Family<Counter>& hit_tokens;
  Counter& hit_l1_tokens;
  Counter& hit_l2_tokens;
  Counter& hit_l1_keys;
  Counter& hit_l2_keys;
  Counter& lookups;
  Family<Histogram>& l0_l1_store;
  Family<Histogram>& l0_l1_load;
  Family<Histogram>& l2_store;
  Family<Histogram>& l2_load;
};

LmcacheMetrics::LmcacheMetrics(Options options)
    : options_(std::move(options)), rng_(options_.seed) {
  std::lock_guard<std::mutex> lock(mu_);
  Build();
}

LmcacheMetrics::~LmcacheMetrics() = default;

void LmcacheMetrics::Build() {
  families_.reset();
  registry_ = std::make_shared<prometheus::Registry>();
  families_ = std::make_unique<Families>(*registry_);
  families_->l1_memory_usage_bytes.Set(static_cast<double>(l1_used_bytes_));
  families_->l1_usage_ratio.Set(l1_usage_ratio_);
  if (!options_.l2_name.empty()) {
    const prometheus::Labels l2 = {{"l2_name", options_.l2_name}};
    families_->l2_usage_bytes.Add(l2).Set(static_cast<double>(l2_usage_bytes_));
    families_->l2_store_requests.Add(l2);
    families_->l2_store_chunks.Add(l2);
    families_->l2_load_requests.Add(l2);
    families_->l2_evicted_chunks.Add(l2);
    families_->l2_store.Add(l2, ThroughputBuckets());
    families_->l2_load.Add(l2, ThroughputBuckets());
  }
  for (const std::string& model : models_) AddModelSeries(model);
}

void LmcacheMetrics::AddModelSeries(const std::string& model) {
  const prometheus::Labels labels = {{"model_name", model}};
  families_->requested_tokens.Add(labels);
  families_->hit_tokens.Add(labels);
  families_->chunks_loaded.Add(labels);
  families_->l0_l1_store.Add(labels, ThroughputBuckets());
  families_->l0_l1_load.Add(labels, ThroughputBuckets());
}

void LmcacheMetrics::RegisterModel(const std::string& model) {
  std::lock_guard<std::mutex> lock(mu_);
  if (models_.insert(model).second) AddModelSeries(model);
}

bool LmcacheMetrics::Sampled() {
  if (options_.l2_sample_rate >= 1.0) return true;
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < options_.l2_sample_rate;
}

void LmcacheMetrics::RecordLookup(const std::string& model, int64_t requested_tokens,
                                  int hit_l1_chunks, int hit_l2_chunks, int chunk_size) {
  std::lock_guard<std::mutex> lock(mu_);
  const prometheus::Labels labels = {{"model_name", model}};
  const double l1_tokens = static_cast<double>(hit_l1_chunks) * chunk_size;
  const double l2_tokens = static_cast<double>(hit_l2_chunks) * chunk_size;
  families_->lookups.Increment();
  families_->requested_tokens.Add(labels).Increment(static_cast<double>(requested_tokens));
  families_->hit_tokens.Add(labels).Increment(l1_tokens + l2_tokens);
  families_->hit_l1_tokens.Increment(l1_tokens);
  families_->hit_l2_tokens.Increment(l2_tokens);
  families_->hit_l1_keys.Increment(hit_l1_chunks);
  families_->hit_l2_keys.Increment(hit_l2_chunks);
}

void LmcacheMetrics::RecordLoad(const std::string& model, int loaded_chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  const prometheus::Labels labels = {{"model_name", model}};
  families_->read_chunks.Increment(loaded_chunks);
  families_->chunks_loaded.Add(labels).Increment(loaded_chunks);
  if (loaded_chunks > 0) {
    families_->l0_l1_load.Add(labels, ThroughputBuckets()).Observe(kModeledL1ToL0GbPerSecond);
  }
}

void LmcacheMetrics::RecordStore(const std::string& model, int written_chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  families_->write_chunks.Increment(written_chunks);
  if (written_chunks > 0) {
    families_->l0_l1_store.Add({{"model_name", model}}, ThroughputBuckets())
        .Observe(kModeledL0ToL1GbPerSecond);
  }
}

void LmcacheMetrics::RecordL1Writes(int chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  families_->write_chunks.Increment(chunks);
}

void LmcacheMetrics::RecordEvictionTick(bool triggered) {
  std::lock_guard<std::mutex> lock(mu_);
  families_->ticks.Increment();
  if (triggered) families_->triggered.Increment();
}

void LmcacheMetrics::RecordL1Eviction(int chunks, bool synchronous) {
  std::lock_guard<std::mutex> lock(mu_);
  families_->evicted_chunks.Increment(chunks);
  if (synchronous) families_->sync_evictions.Increment();
}

void LmcacheMetrics::RecordL1AllocationFailure(int chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  families_->allocation_failures.Increment(chunks);
}

void LmcacheMetrics::SetL1Usage(int64_t used_bytes, double ratio) {
  std::lock_guard<std::mutex> lock(mu_);
  l1_used_bytes_ = used_bytes;
  l1_usage_ratio_ = ratio;
  families_->l1_memory_usage_bytes.Set(static_cast<double>(used_bytes));
  families_->l1_usage_ratio.Set(ratio);
}

void LmcacheMetrics::RecordL2Store(int chunks, int64_t real_bytes, absl::Duration io_time) {
  std::lock_guard<std::mutex> lock(mu_);
  const prometheus::Labels l2 = {{"l2_name", options_.l2_name}};
  families_->l2_store_requests.Add(l2).Increment();
  families_->l2_store_chunks.Add(l2).Increment(chunks);
  if (io_time > absl::ZeroDuration() && Sampled()) {
    families_->l2_store.Add(l2, ThroughputBuckets()).Observe(GbPerSecond(real_bytes, io_time));
  }
}

void LmcacheMetrics::RecordL2Load(int chunks, int64_t real_bytes, absl::Duration io_time) {
  std::lock_guard<std::mutex> lock(mu_);
  const prometheus::Labels l2 = {{"l2_name", options_.l2_name}};
  families_->l2_load_requests.Add(l2).Increment();
  if (chunks > 0 && io_time > absl::ZeroDuration() && Sampled()) {
    families_->l2_load.Add(l2, ThroughputBuckets()).Observe(GbPerSecond(real_bytes, io_time));
  }
}

void LmcacheMetrics::RecordL2Eviction(int chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  families_->l2_evicted_chunks.Add({{"l2_name", options_.l2_name}}).Increment(chunks);
}

void LmcacheMetrics::SetL2Usage(int64_t logical_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  l2_usage_bytes_ = logical_bytes;
  families_->l2_usage_bytes.Add({{"l2_name", options_.l2_name}})
      .Set(static_cast<double>(logical_bytes));
}

std::string LmcacheMetrics::Render() const {
  std::shared_ptr<prometheus::Registry> registry;
  {
    std::lock_guard<std::mutex> lock(mu_);
    registry = registry_;
  }
  return prometheus::TextSerializer().Serialize(registry->Collect());
}

void LmcacheMetrics::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  Build();
}

}  // namespace kvbench::sim::lmcache
