#include "controller/search/capacity_search.h"

#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <vector>

namespace kvbench::search {
namespace {

// What a probe at `concurrency` says after `repeats` repeats.
using Oracle = std::function<ProbeOutcome(int concurrency, int repeats)>;

struct Searched {
  SearchStep done;
  std::vector<int> order;  // concurrencies run, in order (a kMore repeats the concurrency)
  int scenarios = 0;       // repeats run in all
};

// Drives NextStep against `oracle` until it is done (at most 100 steps).
Searched Search(const SearchBounds& bounds, const Oracle& oracle) {
  std::map<int, Probe> probes;
  Searched searched;
  for (int step = 0; step < 100; ++step) {
    std::vector<Probe> list;
    for (const auto& [c, probe] : probes) list.push_back(probe);
    const SearchStep next = NextStep(bounds, list);
    if (next.kind == SearchStep::Kind::kDone) {
      searched.done = next;
      return searched;
    }
    REQUIRE(next.repeats >= 1);
    Probe& probe = probes[next.concurrency];
    if (next.kind == SearchStep::Kind::kRun) REQUIRE(probe.repeats == 0);
    probe.concurrency = next.concurrency;
    probe.repeats += next.repeats;
    probe.outcome = oracle(probe.concurrency, probe.repeats);
    searched.order.push_back(next.concurrency);
    searched.scenarios += next.repeats;
  }
  FAIL("the search did not end in 100 steps");
  return searched;
}

Oracle Threshold(int capacity) {
  return
      [capacity](int c, int) { return c <= capacity ? ProbeOutcome::kMet : ProbeOutcome::kMissed; };
}

TEST_CASE("The search gallops then bisects to the capacity known in advance", "[search]") {
  SearchBounds bounds;
  bounds.min = 1;
  bounds.max = 256;
  const Searched searched = Search(bounds, Threshold(12));
  CHECK(searched.order == std::vector<int>{1, 2, 4, 8, 16, 12, 14, 13});
  REQUIRE(searched.done.capacity.has_value());
  CHECK(*searched.done.capacity == 12);
  CHECK(searched.done.low == 12);
  CHECK(searched.done.high == 12);
  CHECK_FALSE(searched.done.at_max);
  CHECK(searched.done.reason == "met at 12, missed at 13");
  for (int capacity : {1, 2, 3, 5, 7, 19, 31, 64, 100, 255}) {
    INFO("capacity " << capacity);
    const Searched other = Search(bounds, Threshold(capacity));
    REQUIRE(other.done.capacity.has_value());
    // Exact to 1 user below 20 users; within 5% above.
    CHECK(other.done.low == *other.done.capacity);
    CHECK(other.done.low <= capacity);
    CHECK(other.done.high >= capacity);
    if (capacity < 20) CHECK(other.done.high == other.done.low);
    CHECK(other.done.high - other.done.low <= other.done.low * 0.05);
    CHECK(other.order.size() < static_cast<size_t>(bounds.max_probes));  // never reached
  }
}

TEST_CASE("A tier that meets the SLO at max, or misses it at min, says so", "[search]") {
  SearchBounds bounds;
  bounds.min = 2;
  bounds.max = 24;
  const Searched all = Search(bounds, Threshold(1000));
  CHECK(all.order == std::vector<int>{2, 4, 8, 16, 24});
  CHECK(*all.done.capacity == 24);
  CHECK(all.done.at_max);
  const Searched none = Search(bounds, Threshold(1));
  CHECK_FALSE(none.done.capacity.has_value());
  CHECK(none.done.reason == "missed the SLO already at the search's min 2");
}

TEST_CASE("An undecided probe gets more repeats, then stays in the capacity's range", "[search]") {
  SearchBounds bounds;
  bounds.repeats = 2;
  bounds.max_repeats = 6;
  // Clear below 12 and from 15 on; 12-14 never decided, however many repeats.
  const Oracle oracle = [](int c, int) {
    if (c < 12) return ProbeOutcome::kMet;
    return c >= 15 ? ProbeOutcome::kMissed : ProbeOutcome::kUndecided;
  };
  const Searched searched = Search(bounds, oracle);
  REQUIRE(searched.done.capacity.has_value());
  CHECK(*searched.done.capacity == 11);
  CHECK(searched.done.low == 11);
  CHECK(searched.done.high == 14);
  CHECK(searched.done.reason == "undecided between 12 and 14 after 6 repeats each");
  // A probe decided by its extra repeats counts as decided.
  const Oracle settles = [](int c, int repeats) {
    if (c == 12) return repeats >= 4 ? ProbeOutcome::kMet : ProbeOutcome::kUndecided;
    return c <= 12 ? ProbeOutcome::kMet : ProbeOutcome::kMissed;
  };
  const Searched settled = Search(bounds, settles);
  CHECK(*settled.done.capacity == 12);
  CHECK(settled.done.high == 12);
}

TEST_CASE("A miss below a meet stops the capacity below the miss", "[search]") {
  SearchBounds bounds;
  // 8 misses (a preemption cascade), 16 meets: the capacity is under the lowest miss.
  const Oracle oracle = [](int c, int) {
    return c == 8 || c > 16 ? ProbeOutcome::kMissed : ProbeOutcome::kMet;
  };
  const Searched searched = Search(bounds, oracle);
  CHECK(*searched.done.capacity == 7);
  CHECK(searched.done.high == 7);
}

TEST_CASE("Judging a probe from its intervals against the targets", "[search]") {
  CHECK(JudgeProbe({{2.0, 1.2, 1.8}}) == ProbeOutcome::kMet);
  CHECK(JudgeProbe({{2.0, 2.1, 2.9}}) == ProbeOutcome::kMissed);
  CHECK(JudgeProbe({{2.0, 1.5, 2.5}}) == ProbeOutcome::kUndecided);
  // Every target must be met; one clearly missed decides.
  CHECK(JudgeProbe({{2.0, 1.2, 1.8}, {0.05, 0.03, 0.06}}) == ProbeOutcome::kUndecided);
  CHECK(JudgeProbe({{2.0, 1.5, 2.5}, {0.05, 0.06, 0.07}}) == ProbeOutcome::kMissed);
  CHECK(JudgeProbe({}) == ProbeOutcome::kUndecided);
  CHECK(std::string(ProbeOutcomeName(ProbeOutcome::kMet)) == "met");
}

}  // namespace
}  // namespace kvbench::search
