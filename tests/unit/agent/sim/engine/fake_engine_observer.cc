#include "tests/unit/agent/sim/engine/fake_engine_observer.h"

#include <cstdint>
#include <mutex>
#include <vector>

namespace kvbench::sim::testing {

void FakeEngineObserver::OnStep(const StepStats& stats) {
  std::lock_guard<std::mutex> lock(mu_);
  steps_.push_back(stats);
}

void FakeEngineObserver::OnPrefixCacheLookup(int64_t queries, int64_t hits) {
  std::lock_guard<std::mutex> lock(mu_);
  prefix_queries_ += queries;
  prefix_hits_ += hits;
}

void FakeEngineObserver::OnExternalCacheLookup(int64_t queries, int64_t hits) {
  std::lock_guard<std::mutex> lock(mu_);
  ++external_lookups_;
  external_queries_ += queries;
  external_hits_ += hits;
}

void FakeEngineObserver::OnPreemption() {
  std::lock_guard<std::mutex> lock(mu_);
  ++preemptions_;
}

void FakeEngineObserver::OnRequestFinished(const FinishedRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  finished_.push_back(request);
}

std::vector<EngineObserver::StepStats> FakeEngineObserver::steps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_;
}

std::vector<EngineObserver::FinishedRequest> FakeEngineObserver::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_;
}

int64_t FakeEngineObserver::prefix_queries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return prefix_queries_;
}

int64_t FakeEngineObserver::prefix_hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return prefix_hits_;
}

int64_t FakeEngineObserver::external_queries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return external_queries_;
}

int64_t FakeEngineObserver::external_hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return external_hits_;
}

int64_t FakeEngineObserver::external_lookups() const {
  std::lock_guard<std::mutex> lock(mu_);
  return external_lookups_;
}

int64_t FakeEngineObserver::preemptions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return preemptions_;
}

}  // namespace kvbench::sim::testing
