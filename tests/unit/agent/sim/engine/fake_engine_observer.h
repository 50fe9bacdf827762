#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "agent/sim/engine/engine_types.h"

namespace kvbench::sim::testing {

// Records what the engine reports, as /metrics would see it. Thread-safe.
class FakeEngineObserver : public EngineObserver {
 public:
  void OnStep(const StepStats& stats) override;
  void OnPrefixCacheLookup(int64_t queries, int64_t hits) override;
  void OnExternalCacheLookup(int64_t queries, int64_t hits) override;
  void OnPreemption() override;
  void OnRequestFinished(const FinishedRequest& request) override;

  std::vector<StepStats> steps() const;
  std::vector<FinishedRequest> finished() const;
  int64_t prefix_queries() const;
  int64_t prefix_hits() const;
  int64_t external_queries() const;
  int64_t external_hits() const;
  int64_t external_lookups() const;
  int64_t preemptions() const;

 private:
  mutable std::mutex mu_;
  std::vector<StepStats> steps_;
  std::vector<FinishedRequest> finished_;
  int64_t prefix_queries_ = 0;
  int64_t prefix_hits_ = 0;
  int64_t external_queries_ = 0;
  int64_t external_hits_ = 0;
  int64_t external_lookups_ = 0;
  int64_t preemptions_ = 0;
};

}  // namespace kvbench::sim::testing
