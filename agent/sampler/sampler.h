#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "agent/sampler/rate_math.h"
#include "agent/sampler/replay_window.h"
#include "agent/sampler/sim_step_lateness.h"
#include "common/http/http_client.h"
#include "kvbench/v1/event.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::sampler {

// The source name of the cache server's samples.
inline constexpr char kCacheServerSource[] = "cache-server";

// `t_s` to the nearest millisecond: a scrape's time as samples.jsonl records it and the rates use
// it. Prometheus stores sample timestamps as whole milliseconds (model/timestamp), so the same
// samples given to a real Prometheus (tests/e2e/prometheus_crosscheck.sh) select exactly the
// windows ours do. The sampler's steps are aligned to its scrapes one period apart, so window
// edges sit within a fraction of a ms of scrapes by design: at microseconds, which side of the
// edge a scrape fell on differed from Prometheus's in one CI run (a final-quarter hit rate 0.6%
// off PromQL's).
double ToScrapeResolution(double t_s);

// One /metrics endpoint a scenario samples: every vLLM replica directly (never through Caddy) and,
// for CPU_RAM/NVME, the cache server.
struct ScrapeTarget {
  std::string source;  // "replica-0", "cache-server"
  std::string url;     // http://host:port/metrics
  bool lmcache = false;
};

// DESIGN.md "Sampling": a "before" scrape just before traffic, a "periodic" one every period
// during the replay, an "after" one when traffic ends. Which of them summarise the replay is
// replay_window.h's rule: gauges (KV cache usage mean and max, LMCache's L1 usage ratio) over
// the in-replay scrapes only — the periodic ones between "before" and "after", never the idle
// "before"/"after" — and absent when there were none; counters (prefix-cache query/hit tokens,
// preemptions, histogram totals) as their increase from "before" to "after", per replica,
// summed. Each scrape of each target keeps the
// catalog's values (metric_catalog.h), is appended to samples.jsonl (one Sample as JSON per line)
// and handed to `on_sample` (the scenario's event stream). At the end it turns the series into
// the result's engine and LMCache metrics with rate_math.h. Not thread-safe: the scenario's
// thread drives it. A failed scrape is logged (rate-limited) and skipped: a missing point, not a
// zero. LMCache leaves a counter out of /metrics until its first increment (OpenTelemetry's
// exporter has no data point before it), so for the cache server a counter absent from a
// successful "before" scrape counts as 0 there; a failed "before" scrape stays unknown.
class Sampler {
 public:
  struct Options {
    double period_s = 15;        // already scaled for simulated engines
    double rate_window_s = 300;  // idem
    std::string samples_path;    // samples.jsonl; "" = not written
    absl::Duration scrape_timeout = absl::Seconds(5);
  };

  Sampler(HttpClient* http, std::vector<ScrapeTarget> targets, Options options,
          std::function<void(const v1::Sample&)> on_sample);

  // Scrapes every target now. `kind` is "before", "periodic" or "after"; `t_s` is seconds since
  // the replay started, recorded to the millisecond (ToScrapeResolution).
  void Scrape(const std::string& kind, double t_s);
  // Appends a reading that is not a scrape (the host's CPU counters: host_cpu_sample.h) to
  // samples.jsonl and hands it to `on_sample`; the sampler's own math ignores it.
  // Its time is recorded to the millisecond too, so the host's reading at a scrape keeps that
  // scrape's time.
  void Record(v1::Sample sample);
  // When the runner's last response was seen (seconds since the replay started, as Scrape's
  // `t_s`): periodic scrapes after it no longer count for the gauges (replay_window.h).
  void SetLastResponse(double t_s) { last_response_s_ = t_s; }
  // True when a periodic scrape is due at `t_s` (one period after the previous one).
  bool Due(double t_s) const;
  double period_s() const { return options_.period_s; }

  // Local/external hit rates (sum over replicas of rate(hits) / sum of rate(queries), the mean
  // of the replay's final quarter of that series, or the before/after diff for a replay with too
  // few steps for a plateau; hit_rate_method says which), mean prefill/queue time (before/after
  // histogram diff, absent when the histogram is), KV cache usage mean and max over the in-replay
  // scrapes, preemptions and the prefix-cache token counters' increases from "before" to
  // "after" (summed over replicas), cache config.
  v1::EngineMetrics EngineResult() const;
  // The cache server's metrics; nullopt without a cache server target.
  std::optional<v1::LmcacheMetrics> LmcacheResult() const;
  // Series for charts: local/external hit rate and KV cache usage over time.
  std::vector<v1::TimeSeries> Series() const;
  // kvsim-vllm's step lateness over the replay (sim_step_lateness.h): the histogram's increases
  // from "before" to "after", per replica and summed; nullopt when no replica exports it (a
  // real vLLM) or no step went out.
  std::optional<SimStepLateness> StepLateness() const;
  // Scrapes of `source` that answered 200 so far.
  int SuccessfulScrapes(const std::string& source) const;

 private:
  struct Tick {
    std::string kind;
    double t_s = 0;
    std::map<std::string, std::map<std::string, double>> values;  // source → key → value
  };

  // `key` at each tick where any source has it: summed over the replicas (counters), or their
  // mean (`mean`: gauges such as KV cache usage); `lmcache` picks the cache server instead.
  struct Column {
    std::vector<double> t;
    std::vector<double> v;
  };
  Column Reduce(const std::string& key, bool lmcache, bool mean) const;
  // One replica's `key` at each tick it was scraped.
  std::vector<Point> ReplicaPoints(const ScrapeTarget& target, const std::string& key) const;
  // The scrapes from "before" to "after" (replay_window.h ReplaySpan); nullopt without scrapes.
  std::optional<ScrapeSpan> Span() const;
  // The sum over the replicas (or, with `lmcache`, the cache server) of each one's
  // CounterIncrease of `key` over Span(); nullopt when none has 2 points of it there.
  std::optional<double> Increase(const std::string& key, bool lmcache = false) const;
  // `key` at each scrape (its kind, and the value of each replica, or of the cache server with
  // `lmcache`, that had it), for SummarizeInReplay.
  std::vector<GaugeScrape> GaugeScrapes(const std::string& key, bool lmcache) const;
  // Sets the engine's prefix-cache token counters (increases over the replay).
  void SetPrefixCacheTokens(v1::EngineMetrics* engine) const;
  // sum(rate(hits)) / sum(rate(queries)) of two replica counters, rate per replica (rate_math.h
  // ComputeHitRate).
  HitRate HitRateOf(const char* hits_key, const char* queries_key) const;
  std::optional<double> FirstValue(const std::string& key) const;

  HttpClient* http_;
  std::vector<ScrapeTarget> targets_;
  Options options_;
  std::function<void(const v1::Sample&)> on_sample_;
  // LMCache's L2 bytes (l2_load_bytes, l2_store_bytes): chunk counts x L2BytesPerChunk.
  void SetL2Bytes(v1::LmcacheMetrics* lmcache) const;

  std::vector<Tick> ticks_;
  std::optional<double> last_periodic_s_;
  std::optional<double> last_response_s_;
  std::map<std::string, int> successful_scrapes_;  // by source
  std::map<std::string, bool> redeclarations_logged_;
};

}  // namespace kvbench::sampler
