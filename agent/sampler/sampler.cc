#include "agent/sampler/sampler.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/sampler/derived_metrics.h"
#include "agent/sampler/external_query_counting.h"
#include "agent/sampler/l2_store_failures.h"
#include "agent/sampler/metric_catalog.h"
#include "agent/sampler/rate_math.h"
#include "common/json/proto_json.h"
#include "common/log/logging.h"
#include "common/prometheus/exposition.h"

namespace kvbench::sampler {

double ToScrapeResolution(double t_s) { return std::round(t_s * 1000) / 1000; }

namespace {

v1::TimeSeries ToSeries(const std::string& name, const std::vector<Point>& points) {
  v1::TimeSeries series;
  series.set_name(name);
  for (const Point& point : points) {
    series.add_t_s(point.t_s);
    series.add_value(point.value);
  }
  return series;
}

v1::HitRateMethod ToProto(HitRateMethod method) {
  switch (method) {
    case HitRateMethod::kRollingFinalQuarter:
      return v1::HIT_RATE_ROLLING_FINAL_QUARTER;
    case HitRateMethod::kBeforeAfter:
      return v1::HIT_RATE_BEFORE_AFTER;
    case HitRateMethod::kNone:
      break;
  }
  return v1::HIT_RATE_METHOD_UNSPECIFIED;
}

}  // namespace

Sampler::Sampler(HttpClient* http, std::vector<ScrapeTarget> targets, Options options,
                 std::function<void(const v1::Sample&)> on_sample)
    : http_(http),
      targets_(std::move(targets)),
      options_(std::move(options)),
      on_sample_(std::move(on_sample)) {}

bool Sampler::Due(double t_s) const {
  return !last_periodic_s_ || t_s >= *last_periodic_s_ + options_.period_s;
}

void Sampler::Scrape(const std::string& kind, double exact_t_s) {
  const double t_s = ToScrapeResolution(exact_t_s);
  if (kind == "periodic" || kind == "before") last_periodic_s_ = t_s;
  Tick tick{kind, t_s, {}};
  std::ofstream out;
  if (!options_.samples_path.empty()) out.open(options_.samples_path, std::ios::app);
  for (const ScrapeTarget& target : targets_) {
    absl::StatusOr<HttpResponse> response = http_->Get(target.url, options_.scrape_timeout);
    if (!response.ok() || response->status != 200) {
      KV_LOG_EVERY_N_SEC(WARNING, 30)
          << "scrape failed source=" << target.source << " url=" << target.url << " error="
          << (response.ok() ? absl::StrCat("HTTP ", response->status)
                            : std::string(response.status().message()));
      continue;
    }
    const prometheus_text::Exposition exposition = prometheus_text::Parse(response->body);
    ++successful_scrapes_[target.source];
    if (!exposition.redeclarations.empty() && !redeclarations_logged_[target.source]) {
      // Not malformed (LMCache exports a gauge and a histogram of one name): said once.
      redeclarations_logged_[target.source] = true;
      KV_LOG(INFO) << "metrics declare a name twice, the first declaration is used source="
                   << target.source << " name=" << exposition.redeclarations.front().name;
    }
    if (!exposition.errors.empty()) {
      KV_LOG_EVERY_N_SEC(WARNING, 30) << "malformed metrics lines source=" << target.source
                                      << " count=" << exposition.errors.size()
                                      << " first_line=" << exposition.errors.front().line
                                      << " error=" << exposition.errors.front().message;
    }
    v1::Sample sample;
    sample.set_kind(kind);
    sample.set_source(target.source);
    sample.set_t_s(t_s);
    const std::vector<CatalogEntry>& catalog = target.lmcache ? LmcacheCatalog() : VllmCatalog();
    std::map<std::string, double>& values = tick.values[target.source];  // present: it answered
    for (auto& [key, value] : SelectValues(exposition, catalog)) {
      (*sample.mutable_values())[key] = value;
      values[key] = value;
    }
    if (target.lmcache && kind == "before") {
      for (const CatalogEntry& entry : catalog) {
        if (IsCounter(entry)) values.emplace(entry.key, 0.0);  // not yet incremented
      }
    }
    if (out.is_open()) out << ProtoToJson(sample) << "\n";
    on_sample_(sample);
  }
  ticks_.push_back(std::move(tick));
}

void Sampler::Record(v1::Sample sample) {
  sample.set_t_s(ToScrapeResolution(sample.t_s()));  // on the scrapes' clock, to the ms
  if (!options_.samples_path.empty()) {
    std::ofstream out(options_.samples_path, std::ios::app);
    out << ProtoToJson(sample) << "\n";
  }
  on_sample_(sample);
}

Sampler::Column Sampler::Reduce(const std::string& key, bool lmcache, bool mean) const {
  Column column;
  for (const Tick& tick : ticks_) {
    double total = 0;
    int count = 0;
    for (const ScrapeTarget& target : targets_) {
      if (target.lmcache != lmcache) continue;
      auto source = tick.values.find(target.source);
      if (source == tick.values.end()) continue;
      auto value = source->second.find(key);
      if (value == source->second.end()) continue;
      total += value->second;
      ++count;
    }
    if (count == 0) continue;  // absent at this tick (every source failed or lacks it)
    column.t.push_back(tick.t_s);
    column.v.push_back(mean ? total / count : total);
  }
  return column;
}

std::vector<Point> Sampler::ReplicaPoints(const ScrapeTarget& target,
                                          const std::string& key) const {
  std::vector<Point> points;
  for (const Tick& tick : ticks_) {
    auto source = tick.values.find(target.source);
    if (source == tick.values.end()) continue;  // this scrape of it failed: a missing point
    if (auto value = source->second.find(key); value != source->second.end()) {
      points.push_back({tick.t_s, value->second});
    }
  }
  return points;
}

std::optional<ScrapeSpan> Sampler::Span() const {
  std::vector<ScrapeKind> kinds;
  for (const Tick& tick : ticks_) kinds.push_back(ParseScrapeKind(tick.kind));
  return ReplaySpan(kinds);
}

std::optional<double> Sampler::Increase(const std::string& key, bool lmcache) const {
  const std::optional<ScrapeSpan> span = Span();
  if (!span) return std::nullopt;
  std::vector<std::vector<Point>> replicas;
  for (const ScrapeTarget& target : targets_) {
    if (target.lmcache != lmcache) continue;
    std::vector<Point>& points = replicas.emplace_back();
    for (std::size_t i = span->first; i <= span->last; ++i) {
      auto source = ticks_[i].values.find(target.source);
      if (source == ticks_[i].values.end()) continue;  // this scrape of it failed
      if (auto value = source->second.find(key); value != source->second.end()) {
        points.push_back({ticks_[i].t_s, value->second});
      }
    }
  }
  return SummedIncrease(replicas);
}

std::vector<GaugeScrape> Sampler::GaugeScrapes(const std::string& key, bool lmcache) const {
  std::vector<GaugeScrape> scrapes;
  for (const Tick& tick : ticks_) {
    GaugeScrape& scrape = scrapes.emplace_back();
    scrape.kind = ParseScrapeKind(tick.kind);
    scrape.t_s = tick.t_s;
    for (const ScrapeTarget& target : targets_) {
      if (target.lmcache != lmcache) continue;
      auto source = tick.values.find(target.source);
      if (source == tick.values.end()) continue;
      if (auto value = source->second.find(key); value != source->second.end()) {
        scrape.values.push_back(value->second);
      }
    }
  }
  return scrapes;
}

void Sampler::SetPrefixCacheTokens(v1::EngineMetrics* engine) const {
  // vLLM's counters, in tokens (vllm/v1/metrics/loggers.py, see metric_catalog.h).
  if (auto tokens = Increase(keys::kPrefixQueries)) {
    engine->set_prefix_cache_query_tokens(static_cast<int64_t>(*tokens));
  }
  if (auto tokens = Increase(keys::kPrefixHits)) {
    engine->set_prefix_cache_hit_tokens(static_cast<int64_t>(*tokens));
  }
  if (auto tokens = Increase(keys::kExternalQueries)) {
    engine->set_external_query_tokens(static_cast<int64_t>(*tokens));
  }
  if (auto tokens = Increase(keys::kExternalHits)) {
    engine->set_external_hit_tokens(static_cast<int64_t>(*tokens));
  }
  engine->set_external_query_counting(ExternalQueryCounting(engine->prefix_cache_query_tokens(),
                                                            engine->prefix_cache_hit_tokens(),
                                                            engine->external_query_tokens()));
}

HitRate Sampler::HitRateOf(const char* hits_key, const char* queries_key) const {
  std::vector<ReplicaCounters> replicas;
  for (const ScrapeTarget& target : targets_) {
    if (target.lmcache) continue;
    replicas.push_back({ReplicaPoints(target, hits_key), ReplicaPoints(target, queries_key)});
  }
  return ComputeHitRate(replicas, options_.period_s, options_.rate_window_s);
}

std::optional<double> Sampler::FirstValue(const std::string& key) const {
  for (const Tick& tick : ticks_) {
    for (const auto& [source, values] : tick.values) {
      if (auto it = values.find(key); it != values.end()) return it->second;
    }
  }
  return std::nullopt;
}

v1::EngineMetrics Sampler::EngineResult() const {
  v1::EngineMetrics engine;
  HitRate local = HitRateOf(keys::kPrefixHits, keys::kPrefixQueries);
  HitRate external = HitRateOf(keys::kExternalHits, keys::kExternalQueries);
  UseOneMethod(&local, &external);
  if (local.value) engine.set_local_hit_rate(*local.value);
  if (external.value) engine.set_external_hit_rate(*external.value);
  engine.set_hit_rate_method(ToProto(local.value ? local.method : external.method));
  // Histogram means and preemptions from each replica's own increase, summed: a replica that
  // died mid-run leaves its counters behind instead of making a fleet-wide sum drop.
  auto histogram_mean = [&](const std::string& key) -> std::optional<double> {
    const std::optional<double> sum = Increase(key + "_sum");
    const std::optional<double> count = Increase(key + "_count");
    if (!sum || !count) return std::nullopt;
    return MeanBetween(HistogramTotals{}, HistogramTotals{*sum, *count});
  };
  if (auto prefill = histogram_mean(keys::kPrefillTime)) engine.set_mean_prefill_time_s(*prefill);
  if (auto queue = histogram_mean(keys::kQueueTime)) engine.set_mean_queue_time_s(*queue);
  const GaugeSummary usage =
      SummarizeInReplay(GaugeScrapes(keys::kKvCacheUsage, false), last_response_s_);
  if (usage.mean) {
    engine.set_kv_cache_usage_mean(*usage.mean);
    engine.set_kv_cache_usage_scrapes(usage.scrapes);
  }
  if (last_response_s_) engine.set_kv_cache_usage_until_s(*last_response_s_);
  if (usage.max) engine.set_kv_cache_usage_max(*usage.max);
  SetPrefixCacheTokens(&engine);
  if (auto increase = Increase(keys::kPreemptions)) {
    engine.set_num_preemptions(static_cast<int64_t>(*increase));
  }
  if (auto blocks = FirstValue(keys::kNumGpuBlocks)) {
    engine.set_num_gpu_blocks(static_cast<int64_t>(*blocks));
  }
  if (auto size = FirstValue(keys::kBlockSize)) engine.set_block_size(static_cast<int32_t>(*size));
  return engine;
}

std::optional<v1::LmcacheMetrics> Sampler::LmcacheResult() const {
  if (std::none_of(targets_.begin(), targets_.end(),
                   [](const ScrapeTarget& target) { return target.lmcache; })) {
    return std::nullopt;
  }
  v1::LmcacheMetrics lmcache;
  auto increase = [&](const char* key) { return Increase(key, /*lmcache=*/true); };
  auto max_of = [&](const char* key) -> std::optional<double> {
    Column series = Reduce(key, true, /*mean=*/false);
    if (series.v.empty()) return std::nullopt;
    return *std::max_element(series.v.begin(), series.v.end());
  };
  // LMCache exports a throughput histogram only after its first store/load: absent from a
  // successful "before" scrape means zero totals then; a failed scrape means unknown.
  auto totals_at = [&](const Tick& tick, const std::string& key) -> std::optional<HistogramTotals> {
    auto source = tick.values.find(kCacheServerSource);
    if (source == tick.values.end()) return std::nullopt;
    auto sum = source->second.find(key + "_sum");
    auto count = source->second.find(key + "_count");
    if (sum == source->second.end() || count == source->second.end()) {
      return tick.kind == "before" ? std::optional<HistogramTotals>(HistogramTotals{})
                                   : std::nullopt;
    }
    return HistogramTotals{sum->second, count->second};
  };
  const std::optional<ScrapeSpan> span = Span();
  auto throughput = [&](const std::string& key) -> std::optional<double> {
    if (!span || span->last <= span->first) return std::nullopt;
    const std::optional<HistogramTotals> before = totals_at(ticks_[span->first], key);
    if (!before) return std::nullopt;
    return ThroughputFromHistogram(before, totals_at(ticks_[span->last], key));
  };
  const auto requested = increase(keys::kLookupRequested);
  const auto hit = increase(keys::kLookupHit);
  if (requested) lmcache.set_lookup_requested_tokens(static_cast<int64_t>(*requested));
  if (hit) lmcache.set_lookup_hit_tokens(static_cast<int64_t>(*hit));
  if (requested && hit && *requested > 0) lmcache.set_hit_rate(*hit / *requested);
  if (auto evicted = increase(keys::kEvictedChunks)) {
    lmcache.set_evicted_chunks(static_cast<int64_t>(*evicted));
  }
  const GaugeSummary ratio =
      SummarizeInReplay(GaugeScrapes(keys::kL1UsageRatio, true), last_response_s_);
  if (ratio.mean) lmcache.set_l1_usage_ratio_mean(*ratio.mean);
  if (auto bytes = max_of(keys::kL1UsageBytes)) {
    lmcache.set_l1_usage_bytes_max(static_cast<int64_t>(*bytes));
  }
  if (auto bytes = max_of(keys::kL2UsageBytes)) {
    lmcache.set_l2_usage_bytes_max(static_cast<int64_t>(*bytes));
  }
  if (auto evicted = increase(keys::kL2EvictedChunks)) {
    lmcache.set_l2_evicted_chunks(static_cast<int64_t>(*evicted));
  }
  if (auto ticks = increase(keys::kEvictionTicks)) {
    lmcache.set_eviction_loop_ticks(static_cast<int64_t>(*ticks));
  }
  if (auto triggered = increase(keys::kEvictionTriggered)) {
    lmcache.set_eviction_loop_triggered(static_cast<int64_t>(*triggered));
  }
  if (auto gbs = throughput(keys::kL0L1Load)) lmcache.set_l0_l1_load_gb_per_s(*gbs);
  if (auto gbs = throughput(keys::kL0L1Store)) lmcache.set_l0_l1_store_gb_per_s(*gbs);
  if (auto gbs = throughput(keys::kL2Load)) lmcache.set_l2_load_gb_per_s(*gbs);
  if (auto gbs = throughput(keys::kL2Store)) lmcache.set_l2_store_gb_per_s(*gbs);
  if (auto chunks = increase(keys::kChunksLoaded)) {
    lmcache.set_chunks_loaded(static_cast<int64_t>(*chunks));
  }
  if (auto dropped = increase(keys::kDroppedEvents)) {
    lmcache.set_dropped_events(static_cast<int64_t>(*dropped));
  }
  SetL2Bytes(&lmcache);
  if (span) {
    std::vector<const std::map<std::string, double>*> scrapes;
    for (std::size_t i = span->first; i <= span->last; ++i) {
      auto source = ticks_[i].values.find(kCacheServerSource);
      if (source != ticks_[i].values.end()) scrapes.push_back(&source->second);
    }
    if (std::optional<L2StoreCounts> l2 = CountL2StoreFailures(scrapes)) {
      lmcache.set_l2_store_submitted_chunks(l2->submitted_chunks);
      lmcache.set_l2_store_failed_chunks(l2->failed_chunks);
    }
  }
  return lmcache;
}

void Sampler::SetL2Bytes(v1::LmcacheMetrics* lmcache) const {
  // The chunk size in bytes at the last scrape where the pool held chunks.
  std::optional<double> chunk_bytes;
  for (auto tick = ticks_.rbegin(); tick != ticks_.rend() && !chunk_bytes; ++tick) {
    auto source = tick->values.find(kCacheServerSource);
    if (source == tick->values.end()) continue;
    const std::map<std::string, double>& values = source->second;
    auto usage = values.find(keys::kL2UsageBytes);
    auto stored = values.find(keys::kL2StoredChunks);
    if (usage == values.end() || stored == values.end()) continue;
    auto evicted = values.find(keys::kL2EvictedChunks);  // absent until the first eviction
    chunk_bytes = L2BytesPerChunk(usage->second, stored->second,
                                  evicted == values.end() ? 0 : evicted->second);
  }
  if (!chunk_bytes) return;
  auto bytes_of = [&](const char* key) -> std::optional<int64_t> {
    std::optional<double> chunks = Increase(key, /*lmcache=*/true);
    if (!chunks) return std::nullopt;
    return static_cast<int64_t>(*chunks * *chunk_bytes);
  };
  if (auto bytes = bytes_of(keys::kL2LoadedChunks)) lmcache->set_l2_load_bytes(*bytes);
  if (auto bytes = bytes_of(keys::kL2StoredChunks)) lmcache->set_l2_store_bytes(*bytes);
}

std::optional<SimStepLateness> Sampler::StepLateness() const {
  const std::string key = keys::kSimStepLateness;
  HistogramIncrease increase;
  const std::optional<double> sum = Increase(key + "_sum");
  const std::optional<double> count = Increase(key + "_count");
  if (!sum || !count) return std::nullopt;
  increase.sum = *sum;
  increase.count = *count;
  std::set<std::string> bucket_keys;
  for (const Tick& tick : ticks_) {
    for (const auto& [source, values] : tick.values) {
      for (const auto& [sample_key, value] : values) {
        if (BucketBound(key, sample_key)) bucket_keys.insert(sample_key);
      }
    }
  }
  for (const std::string& bucket : bucket_keys) {
    if (std::optional<double> added = Increase(bucket)) {
      increase.buckets[*BucketBound(key, bucket)] = *added;
    }
  }
  return SummarizeStepLateness(increase);
}

int Sampler::SuccessfulScrapes(const std::string& source) const {
  auto it = successful_scrapes_.find(source);
  return it == successful_scrapes_.end() ? 0 : it->second;
}

std::vector<v1::TimeSeries> Sampler::Series() const {
  std::vector<v1::TimeSeries> out;
  auto hit_rate_series = [&](const char* name, const char* hits, const char* queries) {
    HitRate rate = HitRateOf(hits, queries);
    if (!rate.series.empty()) out.push_back(ToSeries(name, rate.series));
  };
  hit_rate_series("local_hit_rate", keys::kPrefixHits, keys::kPrefixQueries);
  hit_rate_series("external_hit_rate", keys::kExternalHits, keys::kExternalQueries);
  // The in-replay scrapes the KV usage mean rests on, not the idle ones around them.
  const GaugeSummary usage =
      SummarizeInReplay(GaugeScrapes(keys::kKvCacheUsage, false), last_response_s_);
  if (!usage.series.empty()) out.push_back(ToSeries("kv_cache_usage", usage.series));
  return out;
}

}  // namespace kvbench::sampler
