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

// The exported name of a throughput histogram: `base` ("lmcache_mp_l2_store_throughput") and
// the unit suffix the OTel Prometheus exporter appends for "GB/s", after the "_gbs" that older
// instrument names end in.
std::string ThroughputFamilyName(const char* base, ThroughputNames names) {
  return std::string(base) +
         (names == ThroughputNames::kGbsGbPerSecond ? "_gbs_GB_per_second" : "_GB_per_second");
}

}  // namespace

struct LmcacheMetrics::Families {
  Families(prometheus::Registry& r, prometheus::Registry& duplicate, const Options& options)
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
        dropped_events(Counters(r, "lmcache_mp_event_bus_dropped_events_total",
                                "Events dropped because the EventBus queue was full")
                           .Add({})),
        ticks(
            Counters(r, "lmcache_mp_l1_eviction_loop_ticks_total", "Eviction loop ticks (~1 Hz)")),
        triggered(Counters(r, "lmcache_mp_l1_eviction_loop_triggered_total",
                           "Eviction loop ticks that found usage at or above the watermark")),
        evicted_chunks(Counters(r,
                                options.legacy_evicted_keys_name
                                    ? "lmcache_mp_l1_evicted_keys_total"
                                    : "lmcache_mp_l1_evicted_chunks_total",
                                "Chunks evicted from L1")),
        read_chunks(Counters(r, "lmcache_mp_l1_read_chunks_total", "Chunks read from L1")),
        write_chunks(Counters(r, "lmcache_mp_l1_write_chunks_total", "Chunks written into L1")),
        allocation_failures(Counters(r, "lmcache_mp_l1_allocation_failure_total",
                                     "Chunks dropped because L1 had no room for them")),
        sync_evictions(Counters(r, "kvsim_lmcache_l1_sync_evictions_total",
                                "Writes that evicted synchronously because L1 was full")),
        l2_submitted_requests(Counters(r, "lmcache_mp_l2_store_submitted_requests_total",
                                       "L2 store batches submitted")),
        l2_submitted_chunks(Counters(r, "lmcache_mp_l2_store_submitted_objects_chunks_total",
                                     "Chunks submitted for L2 store")),
        l2_store_requests(Counters(r, "lmcache_mp_l2_store_completed_requests_total",
                                   "L2 store batches completed")),
        l2_store_chunks(Counters(r, "lmcache_mp_l2_store_completed_objects_chunks_total",
                                 "Chunks stored into L2")),
        l2_load_requests(Counters(r, "lmcache_mp_l2_load_completed_requests_total",
                                  "L2 load batches completed")),
        l2_load_chunks(Counters(r, "lmcache_mp_l2_prefetch_load_completed_chunks_total",
                                "Chunks successfully loaded from L2")),
        l2_evicted_chunks(
            Counters(r, "lmcache_mp_l2_evicted_objects_chunks_total", "Chunks evicted from L2")),
        chunks_loaded(
            Counters(r, "lmcache_mp_num_chunks_loaded_total", "Chunks loaded into the engine")),
        requested_tokens(Counters(r, "lmcache_mp_lookup_requested_tokens_total",
                                  "Chunk-aligned tokens looked up")),
        hit_tokens(Counters(r, "lmcache_mp_lookup_hit_tokens_total",
                            "Tokens of the contiguous prefix found in L1 or L2")),
        hit_l1_tokens(Counters(r, "lmcache_mp_lookup_hit_l1_tokens_total", "Hit tokens in L1")),
        hit_l2_tokens(
            Counters(r, "lmcache_mp_lookup_hit_l2_tokens_total", "Hit tokens only in L2")),
        hit_l1_keys(Counters(r, "lmcache_mp_lookup_hit_l1_keys_total", "Hit chunks in L1")),
        hit_l2_keys(Counters(r, "lmcache_mp_lookup_hit_l2_keys_total", "Hit chunks only in L2")),
        lookups(Counters(r, "lmcache_mp_lookups_requests_total", "Lookup requests")),
        l0_l1_store(Histograms(
            r, ThroughputFamilyName("lmcache_mp_l0_l1_store_throughput", options.throughput_names),
            "L0 -> L1 store throughput (modeled PCIe), GB/s")),
        l0_l1_load(Histograms(
            r, ThroughputFamilyName("lmcache_mp_l0_l1_load_throughput", options.throughput_names),
            "L1 -> L0 load throughput (modeled PCIe), GB/s")),
        l2_store(Histograms(
            r, ThroughputFamilyName("lmcache_mp_l2_store_throughput", options.throughput_names),
            "L1 -> L2 store throughput (measured, sampled), GB/s")),
        l2_load(Histograms(
            r, ThroughputFamilyName("lmcache_mp_l2_load_throughput", options.throughput_names),
            "L2 -> L1 load throughput (measured, sampled), GB/s")),
        l1_usage_histogram(Histograms(duplicate, "lmcache_mp_l1_usage_ratio",
                                      "L1 usage ratio sampled once per eviction-loop tick")) {}

  static Family<Counter>& Counters(prometheus::Registry& r, const std::string& name,
                                   const std::string& help) {
    return prometheus::BuildCounter().Name(name).Help(help).Register(r);
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
  Counter& dropped_events;
  // Counters and histograms get their series at the first increment or sample.
  Family<Counter>& ticks;
  Family<Counter>& triggered;
  Family<Counter>& evicted_chunks;
  Family<Counter>& read_chunks;
  Family<Counter>& write_chunks;
  Family<Counter>& allocation_failures;
  Family<Counter>& sync_evictions;
  Family<Counter>& l2_submitted_requests;
  Family<Counter>& l2_submitted_chunks;
  Family<Counter>& l2_store_requests;
  Family<Counter>& l2_store_chunks;
  Family<Counter>& l2_load_requests;
  Family<Counter>& l2_load_chunks;
  Family<Counter>& l2_evicted_chunks;
  Family<Counter>& chunks_loaded;
  Family<Counter>& requested_tokens;
  Family<Counter>& hit_tokens;
  Family<Counter>& hit_l1_tokens;
  Family<Counter>& hit_l2_tokens;
  Family<Counter>& hit_l1_keys;
  Family<Counter>& hit_l2_keys;
  Family<Counter>& lookups;
  Family<Histogram>& l0_l1_store;
  Family<Histogram>& l0_l1_load;
  Family<Histogram>& l2_store;
  Family<Histogram>& l2_load;
  Family<Histogram>& l1_usage_histogram;
};

namespace {

void Inc(Family<Counter>& family, double value, const prometheus::Labels& labels = {}) {
  family.Add(labels).Increment(value);
}

// The L1 usage ratio histogram's buckets (0-1).
const Histogram::BucketBoundaries& RatioBuckets() {
  static const Histogram::BucketBoundaries buckets = {0.1, 0.2, 0.3, 0.4,  0.5,  0.6,
                                                      0.7, 0.8, 0.9, 0.95, 0.99, 1.0};
  return buckets;
}

}  // namespace

LmcacheMetrics::LmcacheMetrics(Options options)
    : options_(std::move(options)), rng_(options_.seed) {
  std::lock_guard<std::mutex> lock(mu_);
  Build();
}

LmcacheMetrics::~LmcacheMetrics() = default;

void LmcacheMetrics::Build() {
  families_.reset();
  registry_ = std::make_shared<prometheus::Registry>();
  duplicate_registry_ = std::make_shared<prometheus::Registry>();
  families_ = std::make_unique<Families>(*registry_, *duplicate_registry_, options_);
  families_->l1_memory_usage_bytes.Set(static_cast<double>(l1_used_bytes_));
  families_->l1_usage_ratio.Set(l1_usage_ratio_);
  if (!options_.l2_name.empty()) {
    families_->l2_usage_bytes.Add({{"l2_name", options_.l2_name}})
        .Set(static_cast<double>(l2_usage_bytes_));
  }
}

bool LmcacheMetrics::Sampled() {
  if (options_.l2_sample_rate >= 1.0) return true;
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < options_.l2_sample_rate;
}

bool LmcacheMetrics::DropEventLocked() {
  if (options_.event_drop_rate <= 0) return false;
  if (options_.event_drop_rate < 1.0 &&
      std::uniform_real_distribution<double>(0.0, 1.0)(rng_) >= options_.event_drop_rate) {
    return false;
  }
  families_->dropped_events.Increment();
  return true;
}

void LmcacheMetrics::RecordLookup(const std::string& model, int64_t requested_tokens,
                                  int hit_l1_chunks, int hit_l2_chunks, int chunk_size) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  const prometheus::Labels labels = {{"model_name", model}};
  const double l1_tokens = static_cast<double>(hit_l1_chunks) * chunk_size;
  const double l2_tokens = static_cast<double>(hit_l2_chunks) * chunk_size;
  Inc(families_->lookups, 1);
  Inc(families_->requested_tokens, static_cast<double>(requested_tokens), labels);
  Inc(families_->hit_tokens, l1_tokens + l2_tokens, labels);
  Inc(families_->hit_l1_tokens, l1_tokens);
  Inc(families_->hit_l2_tokens, l2_tokens);
  Inc(families_->hit_l1_keys, hit_l1_chunks);
  Inc(families_->hit_l2_keys, hit_l2_chunks);
}

void LmcacheMetrics::RecordLoad(const std::string& model, int loaded_chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  const prometheus::Labels labels = {{"model_name", model}};
  Inc(families_->read_chunks, loaded_chunks);
  Inc(families_->chunks_loaded, loaded_chunks, labels);
  if (loaded_chunks > 0) {
    families_->l0_l1_load.Add(labels, ThroughputBuckets()).Observe(kModeledL1ToL0GbPerSecond);
  }
}

void LmcacheMetrics::RecordStore(const std::string& model, int written_chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  Inc(families_->write_chunks, written_chunks);
  if (written_chunks > 0) {
    families_->l0_l1_store.Add({{"model_name", model}}, ThroughputBuckets())
        .Observe(kModeledL0ToL1GbPerSecond);
  }
}

void LmcacheMetrics::RecordL1Writes(int chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  Inc(families_->write_chunks, chunks);
}

void LmcacheMetrics::RecordEvictionTick(bool triggered, double usage_ratio) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  Inc(families_->ticks, 1);
  if (triggered) Inc(families_->triggered, 1);
  if (options_.l1_usage_histogram) {
    families_->l1_usage_histogram.Add({}, RatioBuckets()).Observe(usage_ratio);
  }
}

void LmcacheMetrics::RecordL1Eviction(int chunks, bool synchronous) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  Inc(families_->evicted_chunks, chunks);
  if (synchronous) Inc(families_->sync_evictions, 1);
}

void LmcacheMetrics::RecordL1AllocationFailure(int chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  Inc(families_->allocation_failures, chunks);
}

void LmcacheMetrics::SetL1Usage(int64_t used_bytes, double ratio) {
  std::lock_guard<std::mutex> lock(mu_);
  l1_used_bytes_ = used_bytes;
  l1_usage_ratio_ = ratio;
  families_->l1_memory_usage_bytes.Set(static_cast<double>(used_bytes));
  families_->l1_usage_ratio.Set(ratio);
}

void LmcacheMetrics::RecordL2StoreSubmitted(int chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  Inc(families_->l2_submitted_requests, 1);
  Inc(families_->l2_submitted_chunks, chunks);
}

void LmcacheMetrics::RecordL2Store(int chunks, int64_t real_bytes, absl::Duration io_time) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  const prometheus::Labels l2 = {{"l2_name", options_.l2_name}};
  Inc(families_->l2_store_requests, 1, l2);
  Inc(families_->l2_store_chunks, chunks, l2);
  if (io_time > absl::ZeroDuration() && Sampled()) {
    families_->l2_store.Add(l2, ThroughputBuckets()).Observe(GbPerSecond(real_bytes, io_time));
  }
}

void LmcacheMetrics::RecordL2Load(int chunks, int64_t real_bytes, absl::Duration io_time) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  const prometheus::Labels l2 = {{"l2_name", options_.l2_name}};
  Inc(families_->l2_load_requests, 1, l2);
  if (chunks > 0) Inc(families_->l2_load_chunks, chunks);
  if (chunks > 0 && io_time > absl::ZeroDuration() && Sampled()) {
    families_->l2_load.Add(l2, ThroughputBuckets()).Observe(GbPerSecond(real_bytes, io_time));
  }
}

void LmcacheMetrics::RecordL2Eviction(int chunks) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DropEventLocked()) return;
  Inc(families_->l2_evicted_chunks, chunks, {{"l2_name", options_.l2_name}});
}

void LmcacheMetrics::SetL2Usage(int64_t logical_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  l2_usage_bytes_ = logical_bytes;
  families_->l2_usage_bytes.Add({{"l2_name", options_.l2_name}})
      .Set(static_cast<double>(logical_bytes));
}

std::string LmcacheMetrics::Render() const {
  std::shared_ptr<prometheus::Registry> registry;
  std::shared_ptr<prometheus::Registry> duplicate;
  {
    std::lock_guard<std::mutex> lock(mu_);
    registry = registry_;
    duplicate = duplicate_registry_;
  }
  // Two families of one name, as upstream's exporter writes them: one after the other.
  prometheus::TextSerializer serializer;
  return serializer.Serialize(registry->Collect()) + serializer.Serialize(duplicate->Collect());
}

void LmcacheMetrics::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  Build();
}

}  // namespace kvbench::sim::lmcache
