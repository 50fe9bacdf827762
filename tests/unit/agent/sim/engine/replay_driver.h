#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/sim/engine/engine_core.h"
#include "agent/sim/engine/engine_types.h"

namespace kvbench::sim::testing {

// One round of a session: the prompt it sends and how many tokens it asks for.
struct ReplayRound {
  std::vector<uint32_t> prompt;
  int max_tokens = 16;
};

struct ReplayResult {
  int session = 0;
  int round = 0;
  RequestOutput first;  // the output that carried the first token (or the error)
  RequestOutput last;   // the finishing output
  double ttft_s() const { return first.timings.first_token_s - first.timings.arrival_s; }
};

// Drives an EngineCore on a virtual clock like a closed-loop benchmark client: every session
// sends its rounds in order, round k+1 at the moment round k finishes (no think time), all
// sessions starting together. Requests use ignore_eos, so output lengths are exact.
class ReplayDriver {
 public:
  // `tag` keeps request ids unique across runs on one core.
  ReplayDriver(EngineCore* core, std::string tag);

  // Runs until every round finished; returns results in (session, round) order.
  std::vector<ReplayResult> Run(const std::vector<std::vector<ReplayRound>>& sessions,
                                double start_s);
  double now_s() const { return now_s_; }
  int steps() const { return steps_; }

 private:
  void Send(int session, int round);

  EngineCore* core_;
  const std::string tag_;
  const std::vector<std::vector<ReplayRound>>* sessions_ = nullptr;
  std::vector<std::vector<ReplayResult>> results_;
  double now_s_ = 0;
  int steps_ = 0;
};

// Mean TTFT of the results whose round is at least `min_round`.
double MeanTtft(const std::vector<ReplayResult>& results, int min_round);
// Sums of the cached tokens the results report.
int64_t SumLocalCached(const std::vector<ReplayResult>& results);
int64_t SumExternalCached(const std::vector<ReplayResult>& results);

}  // namespace kvbench::sim::testing
