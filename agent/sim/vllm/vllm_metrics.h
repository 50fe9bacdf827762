#pragma once

#include <memory>
#include <string>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "agent/sim/engine/engine_config.h"
#include "agent/sim/engine/engine_types.h"

namespace kvbench::sim {

// kvsim-vllm's /metrics: vLLM V1's names, types and labels (reference/vllm.md §2.2), every engine
// series labelled model_name and engine="0"; counters end in _total. Timing histograms use vLLM's
// buckets and are recorded in observed (wall) seconds — simulated seconds x time scale — so they
// agree with what clients measure. External prefix-cache counters exist only with a connector;
// --sim-omit-histograms leaves the request-timing histograms out.
// One series is kvsim's own, not vLLM's, and named so: kvsim:step_lateness_seconds,
// how late each engine step's outputs went out in real seconds (ThreadedSimEngine), kept whatever
// the flags.
class VllmMetrics : public EngineObserver {
 public:
  struct Options {
    std::string model_name;
    bool with_connector = false;
    bool omit_histograms = false;
    double time_scale = 1.0;
    double gpu_memory_utilization = 0.92;
  };

  VllmMetrics(const Options& options, const EngineConfig& engine);
  ~VllmMetrics() override;

  // The text exposition of every series.
  std::string Render() const;

  void OnStep(const StepStats& stats) override;
  void OnPrefixCacheLookup(int64_t queries, int64_t hits) override;
  void OnExternalCacheLookup(int64_t queries, int64_t hits) override;
  void OnPreemption() override;
  void OnRequestFinished(const FinishedRequest& request) override;
  void OnStepLateness(double real_seconds) override;

 private:
  struct Histograms;

  const Options options_;
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Gauge* running_;
  prometheus::Gauge* waiting_;
  prometheus::Gauge* kv_cache_usage_;
  prometheus::Counter* prefix_queries_;
  prometheus::Counter* prefix_hits_;
  prometheus::Counter* external_queries_ = nullptr;
  prometheus::Counter* external_hits_ = nullptr;
  prometheus::Counter* prompt_tokens_;
  prometheus::Counter* generation_tokens_;
  prometheus::Counter* preemptions_;
  prometheus::Family<prometheus::Counter>* success_;
  prometheus::Histogram* step_lateness_;
  std::unique_ptr<Histograms> histograms_;  // null with omit_histograms
};

}  // namespace kvbench::sim
