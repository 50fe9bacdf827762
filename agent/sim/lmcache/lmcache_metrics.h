#pragma once

#include <prometheus/registry.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "absl/time/time.h"
#include "agent/sim/lmcache/imitated_release.h"

namespace kvbench::sim::lmcache {

// Modeled L0 <-> L1 (GPU <-> pinned host memory) bandwidth, in GB/s, recorded as the throughput
// of every L0/L1 transfer: the simulator moves no KV over PCIe, so the measured H200 figures of
// reference/sim-calibration.md ("Host <-> GPU copies") stand in: pinned host -> GPU 55.5 GB/s for
// loads, GPU -> pinned host 55.3 GB/s for stores.
inline constexpr double kModeledL1ToL0GbPerSecond = 55.5;
inline constexpr double kModeledL0ToL1GbPerSecond = 55.3;

// kvsim-lmcache's /metrics, with LMCache MP's Prometheus names (reference/lmcache.md §3.2):
//   gauges      lmcache_mp_l1_usage_ratio, lmcache_mp_l1_memory_usage_bytes,
//               lmcache_mp_l2_usage_bytes{l2_name} (logical KV bytes held)
//   counters    lmcache_mp_l1_eviction_loop_ticks_total, _triggered_total,
//               lmcache_mp_l1_evicted_chunks_total (lmcache_mp_l1_evicted_keys_total with
//               legacy_evicted_keys_name, as older builds), lmcache_mp_l1_read_chunks_total,
//               lmcache_mp_l1_write_chunks_total, lmcache_mp_l1_allocation_failure_total,
//               lmcache_mp_l2_store_submitted_requests_total,
//               lmcache_mp_l2_store_submitted_objects_chunks_total (every batch the adapter
//               is given, and its chunks),
//               lmcache_mp_l2_store_completed_requests_total{l2_name} (every batch, failed
//               or not), lmcache_mp_l2_store_completed_objects_chunks_total{l2_name} (the
//               chunks stored: upstream's L2_STORE_COMPLETED of a failed store carries no
//               key counts, subscribers/metrics/l2.py@0b5897e9 and
//               distributed/storage_controllers/store_controller.py, so submitted minus
//               completed chunks, with no batch in flight, is what failed),
//               lmcache_mp_l2_load_completed_requests_total{l2_name},
//               lmcache_mp_l2_prefetch_load_completed_chunks_total (chunks read from L2),
//               lmcache_mp_l2_evicted_objects_chunks_total{l2_name},
//               lmcache_mp_num_chunks_loaded_total{model_name},
//               lmcache_mp_lookup_requested_tokens_total{model_name},
//               lmcache_mp_lookup_hit_tokens_total{model_name},
//               lmcache_mp_lookup_hit_l1_tokens_total, lmcache_mp_lookup_hit_l2_tokens_total,
//               lmcache_mp_lookup_hit_l1_keys_total, lmcache_mp_lookup_hit_l2_keys_total,
//               lmcache_mp_lookups_requests_total,
//               lmcache_mp_event_bus_dropped_events_total (observable: always present)
//   histograms  lmcache_mp_l0_l1_{store,load}_throughput_GB_per_second{model_name}: one sample
//               per STORE / LOAD, the modeled PCIe bandwidth above;
//               lmcache_mp_l2_{store,load}_throughput_GB_per_second{l2_name}: one sample per L2
//               batch, kept with probability --metrics-sample-rate, of the MEASURED real I/O:
//               the adapter writes and reads scaled files (chunk bytes x --sim-l2-bytes-scale),
//               and the figure is logical bytes / (real I/O time / scale), i.e. the real bytes
//               moved per real second on this disk;
//               lmcache_mp_l1_usage_ratio (a histogram of the same name as the gauge, one sample
//               per eviction-loop tick, as upstream's L1EvictionLoopSubscriber records while
//               L1Manager registers the gauge: subscribers/metrics/l1_eviction_loop.py@6e0ccd69);
//               on by default, off with l1_usage_histogram false.
//               With throughput_names kGbsGbPerSecond the four throughput families are named
//               lmcache_mp_{l0_l1,l2}_{store,load}_throughput_gbs_GB_per_second instead, as the
//               generation whose instruments are "lmcache_mp.*_throughput_gbs" with unit "GB/s"
//               (subscribers/metrics/l0_l1_throughput.py@5992904e, l2_throughput.py@00969dae).
//   sim only    kvsim_lmcache_l1_sync_evictions_total: STOREs (and L2 promotions) that had to
//               evict synchronously because L1 was full between eviction-loop ticks.
// As upstream's OpenTelemetry exporter, a counter or histogram has no series (and no family in
// the text) until its first increment or sample; gauges and the dropped-events counter are
// observed on every scrape. Each Record* call is one event of upstream's EventBus: with
// event_drop_rate > 0 that share of them is dropped (counted in
// lmcache_mp_event_bus_dropped_events_total and nowhere else), as the bus drops events when its
// queue is full (mp_observability/subscribers/metrics/event_bus.py@1e64c026). Thread-safe.
class LmcacheMetrics {
 public:
  struct Options {
    std::string l2_name;                    // "" = no L2 adapter
    double l2_sample_rate = 1.0;            // --metrics-sample-rate
    uint64_t seed = 0;                      // --sim-seed, for the sampling and the drops
    double event_drop_rate = 0;             // --sim-event-drop-rate
    bool legacy_evicted_keys_name = false;  // --sim-l1-evicted-keys-name
    bool l1_usage_histogram = true;         // --[no-]sim-l1-usage-histogram
    ThroughputNames throughput_names = ThroughputNames::kGbPerSecond;  // --sim-throughput-names
  };

  explicit LmcacheMetrics(Options options);
  ~LmcacheMetrics();
  LmcacheMetrics(const LmcacheMetrics&) = delete;
  LmcacheMetrics& operator=(const LmcacheMetrics&) = delete;

  // Chunk-aligned token counts of one LOOKUP; keys are chunks.
  void RecordLookup(const std::string& model, int64_t requested_tokens, int hit_l1_chunks,
                    int hit_l2_chunks, int chunk_size);
  // One LOAD: `loaded_chunks` read from L1 towards the engine (after promotions).
  void RecordLoad(const std::string& model, int loaded_chunks);
  // One STORE: `written_chunks` new chunks written into L1.
  void RecordStore(const std::string& model, int written_chunks);
  // Chunks written into L1 other than by STORE (promotions from L2).
  void RecordL1Writes(int chunks);
  // One eviction-loop tick, with the L1 usage ratio it saw.
  void RecordEvictionTick(bool triggered, double usage_ratio);
  void RecordL1Eviction(int chunks, bool synchronous);
  void RecordL1AllocationFailure(int chunks);
  void SetL1Usage(int64_t used_bytes, double ratio);

  // One L2 store batch of `chunks` objects submitted to the adapter (L2_STORE_SUBMITTED).
  void RecordL2StoreSubmitted(int chunks);
  // One completed L2 batch of which `chunks` objects were stored (a failed object counts in the
  // batch, not in `chunks`: L2_STORE_COMPLETED with failed_count); `real_bytes` really moved in
  // `io_time`.
  void RecordL2Store(int chunks, int64_t real_bytes, absl::Duration io_time);
  void RecordL2Load(int chunks, int64_t real_bytes, absl::Duration io_time);
  void RecordL2Eviction(int chunks);
  void SetL2Usage(int64_t logical_bytes);

  // Prometheus text exposition format (version 0.0.4).
  std::string Render() const;
  // Zeroes every counter and histogram (POST /metrics/reset); gauges keep their values.
  void Reset();

 private:
  struct Families;

  void Build();            // (re)creates the registries and families; needs mu_
  bool Sampled();          // needs mu_
  bool DropEventLocked();  // true when this event is dropped (and counted); needs mu_

  const Options options_;
  mutable std::mutex mu_;
  std::shared_ptr<prometheus::Registry> registry_;  // guarded by mu_
  // The same-named L1 usage histogram: a registry of its own, since one registry holds one
  // family per name.
  std::shared_ptr<prometheus::Registry> duplicate_registry_;  // guarded by mu_
  std::unique_ptr<Families> families_;                        // guarded by mu_
  std::mt19937_64 rng_;                                       // guarded by mu_
  // Gauge values, re-applied after Reset().
  int64_t l1_used_bytes_ = 0;
  double l1_usage_ratio_ = 0;
  int64_t l2_usage_bytes_ = 0;
};

}  // namespace kvbench::sim::lmcache
