#include "agent/sim/engine/lockstep_sim_engine.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "agent/sim/engine/block_hasher.h"

namespace kvbench::sim {

LockstepSimEngine::LockstepSimEngine(EngineConfig config, std::unique_ptr<ExternalKvCache> external,
                                     EngineObserver* observer, std::unique_ptr<SimClock> clock,
                                     int rank)
    : config_(std::move(config)),
      external_(std::move(external)),
      observer_(observer),
      clock_(std::move(clock)),
      rank_(rank),
      core_(config_, external_.get(), observer) {}

LockstepSimEngine::~LockstepSimEngine() { Stop(); }

uint64_t LockstepSimEngine::ContentKey(const EngineRequest& request) {
  const uint32_t limits[] = {static_cast<uint32_t>(request.max_tokens),
                             request.ignore_eos ? 1u : 0u};
  const uint64_t prompt =
      BlockHasher::HashGroup(BlockHasher::kRootHash, request.prompt.data(), request.prompt.size());
  return BlockHasher::HashGroup(prompt, limits, 2);
}

void LockstepSimEngine::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (started_ || stopping_) return;
  started_ = true;
  clock_->Join(rank_);
  thread_ = std::thread([this] { Run(); });
}

void LockstepSimEngine::Stop() {
  stopping_ = true;
  clock_->Wake();
  std::lock_guard<std::mutex> join_lock(join_mu_);
  if (thread_.joinable()) {
    // From an output callback (the engine thread itself) the thread exits after the callback;
    // a later Stop() or the destructor joins it.
    if (thread_.get_id() == std::this_thread::get_id()) return;
    thread_.join();
  }
  bool was_started;
  {
    std::lock_guard<std::mutex> lock(mu_);
    was_started = started_;
    started_ = false;
  }
  const double now_s = clock_->NowSeconds();
  ApplyQueued(now_s);
  for (const PendingOutput& output : core_.AbortAll(now_s)) output.Deliver();
  if (was_started) clock_->Leave(rank_);
}

void LockstepSimEngine::Submit(EngineRequest request) {
  if (stopping_) {
    SimEngine::AnswerStopped(request);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  arrivals_.push_back(std::move(request));
  clock_->MarkArrivals(rank_);
}

void LockstepSimEngine::Abort(const std::string& request_id) {
  if (stopping_) return;
  std::lock_guard<std::mutex> lock(mu_);
  aborts_.push_back(request_id);
  clock_->MarkArrivals(rank_);
}

void LockstepSimEngine::ApplyQueued(double now_s) {
  std::vector<EngineRequest> arrivals;
  std::vector<std::string> aborts;
  {
    std::lock_guard<std::mutex> lock(mu_);
    arrivals.swap(arrivals_);
    aborts.swap(aborts_);
  }
  std::vector<std::pair<uint64_t, size_t>> order;
  order.reserve(arrivals.size());
  for (size_t i = 0; i < arrivals.size(); ++i) order.emplace_back(ContentKey(arrivals[i]), i);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [key, index] : order) {
    EngineRequest& request = arrivals[index];
    if (request.sample_key.empty()) request.sample_key = absl::StrFormat("content-%016x", key);
    if (std::optional<PendingOutput> answer = core_.Submit(std::move(request), now_s)) {
      answer->Deliver();
    }
  }
  for (const std::string& id : aborts) {
    if (std::optional<PendingOutput> answer = core_.Abort(id, now_s)) answer->Deliver();
  }
}

void LockstepSimEngine::EndTurn(double next_s, SimClock::Phase phase) {
  std::lock_guard<std::mutex> lock(mu_);
  clock_->EndTurn(rank_, next_s, phase, !arrivals_.empty() || !aborts_.empty());
}

void LockstepSimEngine::Run() {
  std::vector<PendingOutput> due;  // the last step's outputs, for its kDeliver turn
  while (std::optional<SimClock::Turn> turn =
             clock_->AwaitTurn(rank_, [this] { return stopping_.load(); })) {
    if (turn->phase == SimClock::kDeliver) {
      if (observer_ != nullptr) observer_->OnStepLateness(turn->late_real_s);
      for (const PendingOutput& output : due) output.Deliver();
      due.clear();
      EndTurn(core_.HasWork() ? turn->time_s : -1, SimClock::kStep);
      continue;
    }
    ApplyQueued(turn->time_s);
    if (!core_.HasWork()) {
      EndTurn(-1, SimClock::kStep);
      continue;
    }
    const double start_s = core_.EarliestStart(turn->time_s);
    if (start_s > turn->time_s) {  // nothing has arrived yet that may run now
      EndTurn(start_s, SimClock::kStep);
      continue;
    }
    StepResult step = core_.Step(start_s);
    due = std::move(step.outputs);
    EndTurn(start_s + step.duration_s, SimClock::kDeliver);
  }
  // Stopped with a step's outputs not yet out: its finished requests have left the core, so
  // Stop's AbortAll would never answer them.
  for (const PendingOutput& output : due) output.Deliver();
}

}  // namespace kvbench::sim
