#pragma once

// The concurrency search behind "capacity at an SLO": per tier, the largest
// concurrency whose latency still meets the SLO, found by galloping (min, 2 min, 4 min, ... until
// a probe misses or max is reached), then bisecting between the largest concurrency that met and
// the smallest that missed. A probe is a concurrency run some number of repeats; the caller
// judges it from the SLO metric's interval (JudgeProbe): met when the interval lies under the
// target, missed when it lies over it, otherwise undecided, and an undecided probe gets more
// repeats up to a cap before it stays undecided. The search assumes latency grows with
// concurrency (a closed loop at more users queues more); a probe that contradicts it (a miss
// below a meet) is not hidden: the capacity stops below the lowest miss. Pure.

#include <optional>
#include <string>
#include <vector>

namespace kvbench::search {

enum class ProbeOutcome { kMet, kMissed, kUndecided };

// "met", "missed", "undecided".
const char* ProbeOutcomeName(ProbeOutcome outcome);

// One SLO target against the interval of its metric at a probe (same unit).
struct SloCheck {
  double target = 0;  // the SLO: the metric must stay at or under it
  double low = 0;     // the metric's 95% interval at the probe
  double high = 0;
};

// Met when every check's interval lies under its target (high <= target), missed when some
// check's interval lies over it (low > target), otherwise undecided. No check: undecided.
ProbeOutcome JudgeProbe(const std::vector<SloCheck>& checks);

struct SearchBounds {
  int min = 1;          // the smallest concurrency probed, >= 1
  int max = 256;        // the largest, >= min
  int repeats = 2;      // repeats of a new probe, >= 1
  int max_repeats = 6;  // an undecided probe is re-run up to this many repeats in all
  int max_probes = 16;  // concurrencies probed per tier at most (the sweep's time bound)
  // Bisection stops once the range between the meet and the miss is within this share of the
  // meet (and at 1 user): at 200 users, +-5 is as good an answer as +-1, for half the probes.
  double resolution_pct = 5;
};

// What a tier's probes have said so far: one per concurrency probed, its latest outcome.
struct Probe {
  int concurrency = 0;
  int repeats = 0;  // repeats run so far
  ProbeOutcome outcome = ProbeOutcome::kUndecided;
};

struct SearchStep {
  enum class Kind {
    kRun,   // run `concurrency` (a new probe) `repeats` times
    kMore,  // run `repeats` more repeats of the undecided probe at `concurrency`
    kDone,  // the search is over: capacity below
  };
  Kind kind = Kind::kRun;
  int concurrency = 0;
  int repeats = 0;
  // kDone. The capacity: the largest concurrency that met the SLO under the smallest that missed
  // (nullopt: not even `min`); the true one lies in [low, high]: from the largest concurrency up
  // to which every probe met (the capacity itself unless a probe under it was undecided or
  // missed; 0 when the first probe did not meet) to just under the smallest miss (high = max
  // when none missed up to it; then `at_max` is set: the capacity may lie beyond).
  std::optional<int> capacity;
  int low = 0;
  int high = 0;
  bool at_max = false;
  // Why it ended, for people: "bisected to 1 user", "undecided at 14 after 6 repeats", ...
  std::string reason;
};

// The next step of one tier's search. `probes` in any order, one per concurrency.
SearchStep NextStep(const SearchBounds& bounds, const std::vector<Probe>& probes);

}  // namespace kvbench::search
