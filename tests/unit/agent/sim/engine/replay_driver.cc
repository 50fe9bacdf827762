#include "tests/unit/agent/sim/engine/replay_driver.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/log/logging.h"

namespace kvbench::sim::testing {

ReplayDriver::ReplayDriver(EngineCore* core, std::string tag) : core_(core), tag_(std::move(tag)) {}

std::vector<ReplayResult> ReplayDriver::Run(const std::vector<std::vector<ReplayRound>>& sessions,
                                            double start_s) {
  sessions_ = &sessions;
  results_.assign(sessions.size(), {});
  now_s_ = start_s;
  for (size_t s = 0; s < sessions.size(); ++s) {
    results_[s].resize(sessions[s].size());
    if (!sessions[s].empty()) Send(static_cast<int>(s), 0);
  }
  while (core_->HasWork()) {
    const double step_start = core_->EarliestStart(now_s_);
    const StepResult step = core_->Step(step_start);
    ++steps_;
    now_s_ = step_start + step.duration_s;
    for (const PendingOutput& output : step.outputs) output.Deliver();
  }
  std::vector<ReplayResult> flat;
  for (const auto& session : results_) flat.insert(flat.end(), session.begin(), session.end());
  return flat;
}

void ReplayDriver::Send(int session, int round) {
  const ReplayRound& spec = (*sessions_)[static_cast<size_t>(session)][static_cast<size_t>(round)];
  ReplayResult& result = results_[static_cast<size_t>(session)][static_cast<size_t>(round)];
  result.session = session;
  result.round = round;
  EngineRequest request;
  request.id = absl::StrCat(tag_, "-s", session, "-r", round);
  request.prompt = spec.prompt;
  request.max_tokens = spec.max_tokens;
  request.ignore_eos = true;
  request.on_output = [this, session, round](const RequestOutput& output) {
    ReplayResult& r = results_[static_cast<size_t>(session)][static_cast<size_t>(round)];
    if (output.first || !output.error.empty()) r.first = output;
    if (!output.finished) return;
    r.last = output;
    const auto& rounds = (*sessions_)[static_cast<size_t>(session)];
    if (static_cast<size_t>(round) + 1 < rounds.size()) Send(session, round + 1);
  };
  if (auto rejected = core_->Submit(std::move(request), now_s_)) rejected->Deliver();
}

double MeanTtft(const std::vector<ReplayResult>& results, int min_round) {
  double sum = 0;
  int count = 0;
  for (const ReplayResult& result : results) {
    if (result.round < min_round) continue;
    sum += result.ttft_s();
    ++count;
  }
  KV_CHECK(count > 0) << "no rounds from " << min_round;
  return sum / count;
}

int64_t SumLocalCached(const std::vector<ReplayResult>& results) {
  int64_t sum = 0;
  for (const ReplayResult& result : results) sum += result.first.local_cached_tokens;
  return sum;
}

int64_t SumExternalCached(const std::vector<ReplayResult>& results) {
  int64_t sum = 0;
  for (const ReplayResult& result : results) sum += result.first.external_cached_tokens;
  return sum;
}

}  // namespace kvbench::sim::testing
