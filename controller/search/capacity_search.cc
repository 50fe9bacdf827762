#include "controller/search/capacity_search.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "absl/strings/str_cat.h"

namespace kvbench::search {
namespace {

SearchStep Done(std::optional<int> capacity, int low, int high, bool at_max, std::string reason) {
  SearchStep step;
  step.kind = SearchStep::Kind::kDone;
  step.capacity = capacity;
  step.low = low;
  step.high = high;
  step.at_max = at_max;
  step.reason = std::move(reason);
  return step;
}

SearchStep Run(int concurrency, int repeats, SearchStep::Kind kind = SearchStep::Kind::kRun) {
  SearchStep step;
  step.kind = kind;
  step.concurrency = concurrency;
  step.repeats = repeats;
  return step;
}

}  // namespace

const char* ProbeOutcomeName(ProbeOutcome outcome) {
  switch (outcome) {
    case ProbeOutcome::kMet:
      return "met";
    case ProbeOutcome::kMissed:
      return "missed";
    case ProbeOutcome::kUndecided:
      return "undecided";
  }
  return "undecided";
}

ProbeOutcome JudgeProbe(const std::vector<SloCheck>& checks) {
  if (checks.empty()) return ProbeOutcome::kUndecided;
  bool all_under = true;
  for (const SloCheck& check : checks) {
    if (check.low > check.target) return ProbeOutcome::kMissed;
    if (check.high > check.target) all_under = false;
  }
  return all_under ? ProbeOutcome::kMet : ProbeOutcome::kUndecided;
}

SearchStep NextStep(const SearchBounds& bounds, const std::vector<Probe>& probes) {
  std::map<int, const Probe*> by_concurrency;
  for (const Probe& probe : probes) by_concurrency[probe.concurrency] = &probe;
  // An undecided probe first gets its repeats, up to the cap (lowest concurrency first).
  for (const auto& [concurrency, probe] : by_concurrency) {
    if (probe->outcome == ProbeOutcome::kUndecided && probe->repeats < bounds.max_repeats) {
      return Run(concurrency, std::min(bounds.repeats, bounds.max_repeats - probe->repeats),
                 SearchStep::Kind::kMore);
    }
  }
  // The smallest miss, and the largest meet under it.
  std::optional<int> missed;
  for (const auto& [concurrency, probe] : by_concurrency) {
    if (probe->outcome == ProbeOutcome::kMissed) {
      missed = concurrency;
      break;
    }
  }
  std::optional<int> met;
  for (const auto& [concurrency, probe] : by_concurrency) {
    if (missed.has_value() && concurrency >= *missed) break;
    if (probe->outcome == ProbeOutcome::kMet) met = concurrency;
  }
  const int probed = static_cast<int>(by_concurrency.size());
  // The interval's low end: the largest concurrency under which every probe met the SLO. A probe
  // below the capacity that was undecided (or missed) says the curve may cross lower: the
  // capacity is then known only from there (met at 11, undecided at 12, met at 13 and 14: 14
  // [11, ..]), not from the one lucky meet.
  int low = 0;
  for (const auto& [concurrency, probe] : by_concurrency) {
    if (probe->outcome != ProbeOutcome::kMet || (met.has_value() && concurrency > *met)) break;
    low = concurrency;
  }
  if (!missed.has_value()) {
    // Galloping: double past the highest probe until a miss or max.
    const int highest = by_concurrency.empty() ? 0 : by_concurrency.rbegin()->first;
    if (highest >= bounds.max) {
      return Done(met, low, bounds.max, true,
                  met == bounds.max ? absl::StrCat("met the SLO at the search's max ", bounds.max)
                                    : absl::StrCat("undecided at the search's max ", bounds.max,
                                                   " after ", bounds.max_repeats, " repeats"));
    }
    if (probed >= bounds.max_probes) {
      return Done(met, low, bounds.max, false,
                  absl::StrCat("stopped after ", probed, " probes without a miss"));
    }
    const int next = highest == 0 ? bounds.min : std::min(highest * 2, bounds.max);
    return Run(next, bounds.repeats);
  }
  if (*missed == bounds.min && !met.has_value()) {
    return Done(std::nullopt, 0, 0, false,
                absl::StrCat("missed the SLO already at the search's min ", bounds.min));
  }
  // Bisecting between the meet and the miss, over concurrencies not probed yet (undecided ones
  // stay in the range: they are why it is wide), down to the resolution.
  const int from = met.value_or(bounds.min - 1);
  const int gap = *missed - from;
  if (gap > 1 && met.has_value() && gap - 1 <= *met * bounds.resolution_pct / 100) {
    return Done(met, low, *missed - 1, false,
                absl::StrCat("met at ", from, ", missed at ", *missed, ": within ",
                             bounds.resolution_pct, "%"));
  }
  std::optional<int> best;
  const int middle = from + (*missed - from) / 2;
  for (int c = from + 1; c < *missed; ++c) {
    if (by_concurrency.count(c) > 0) continue;
    if (!best.has_value() || std::abs(c - middle) < std::abs(*best - middle)) best = c;
  }
  if (!best.has_value()) {
    const bool tight = *missed - from == 1;
    return Done(
        met, low, *missed - 1, false,
        tight ? absl::StrCat("met at ", from, ", missed at ", *missed)
        : from + 1 == *missed - 1
            ? absl::StrCat("undecided at ", from + 1, " after ", bounds.max_repeats, " repeats")
            : absl::StrCat("undecided between ", from + 1, " and ", *missed - 1, " after ",
                           bounds.max_repeats, " repeats each"));
  }
  if (probed >= bounds.max_probes) {
    return Done(
        met, low, *missed - 1, false,
        absl::StrCat("stopped after ", probed, " probes, between ", from, " and ", *missed));
  }
  return Run(*best, bounds.repeats);
}

}  // namespace kvbench::search
