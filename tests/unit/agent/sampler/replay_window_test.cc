// replay_window.h: which scrapes are in-replay, gauge mean/max over them, counter increases
// summed over replicas. Hand-computed tables.

#include "agent/sampler/replay_window.h"

#include <catch2/catch.hpp>
#include <optional>
#include <vector>

namespace kvbench::sampler {
namespace {

constexpr ScrapeKind kB = ScrapeKind::kBefore;
constexpr ScrapeKind kP = ScrapeKind::kPeriodic;
constexpr ScrapeKind kA = ScrapeKind::kAfter;

TEST_CASE("InReplayScrapes: the periodic scrapes between before and after", "[sampler]") {
  struct Case {
    const char* name;
    std::vector<ScrapeKind> kinds;
    std::vector<bool> in_replay;
  };
  const Case cases[] = {
      {"before, periodic x2, after", {kB, kP, kP, kA}, {false, true, true, false}},
      {"no periodic scrape", {kB, kA}, {false, false}},
      {"periodic during the warm-up, before the before scrape",
       {kP, kB, kP, kA},
       {false, false, true, false}},
      {"no after scrape (the run failed)", {kB, kP, kP}, {false, true, true}},
      {"no before scrape", {kP, kP, kA}, {true, true, false}},
      {"nothing", {}, {}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(InReplayScrapes(c.kinds) == c.in_replay);
  }
  CHECK(ParseScrapeKind("before") == kB);
  CHECK(ParseScrapeKind("periodic") == kP);
  CHECK(ParseScrapeKind("after") == kA);
  CHECK(ParseScrapeKind("other") == ScrapeKind::kOther);
}

TEST_CASE("ReplaySpan: from the last before to the first after", "[sampler]") {
  CHECK_FALSE(ReplaySpan({}).has_value());
  struct Case {
    std::vector<ScrapeKind> kinds;
    std::size_t first;
    std::size_t last;
  };
  const Case cases[] = {
      {{kB, kP, kA}, 0, 2},
      {{kP, kB, kP, kA}, 1, 3},
      {{kB, kP, kP}, 0, 2},
      {{kB, kA, kP}, 0, 1},
  };
  for (const Case& c : cases) {
    const std::optional<ScrapeSpan> span = ReplaySpan(c.kinds);
    REQUIRE(span.has_value());
    CHECK(span->first == c.first);
    CHECK(span->last == c.last);
  }
}

TEST_CASE("SummarizeInReplay: mean over in-replay scrapes of the replicas' mean, and max",
          "[sampler]") {
  struct Case {
    const char* name;
    std::vector<GaugeScrape> scrapes;
    std::optional<double> mean;
    std::optional<double> max;
  };
  const Case cases[] = {
      // Idle before/after scrapes do not drag the mean down.
      // In-replay: (0.4 + 0.6) / 2 = 0.5 and (0.2 + 0.8) / 2 = 0.5 -> 0.5; max 0.8.
      {"two replicas, idle before and after",
       {{kB, {0, 0}}, {kP, {0.4, 0.6}}, {kP, {0.2, 0.8}}, {kA, {0, 0}}},
       0.5,
       0.8},
      // A replica whose scrape failed leaves the other's value: (0.3) and (0.5 + 0.7) / 2 = 0.6.
      {"a failed replica scrape",
       {{kB, {0}}, {kP, {0.3}}, {kP, {0.5, 0.7}}, {kA, {0.9}}},
       0.45,
       0.7},
      // The before/after values never count, even when they are the highest.
      {"before and after excluded from max", {{kB, {0.95}}, {kP, {0.1}}, {kA, {0.99}}}, 0.1, 0.1},
      {"no in-replay scrape: absent, not 0",
       {{kB, {0.2}}, {kA, {0.3}}},
       std::nullopt,
       std::nullopt},
      {"in-replay scrapes without the gauge",
       {{kB, {}}, {kP, {}}, {kA, {}}},
       std::nullopt,
       std::nullopt},
      {"warm-up periodic scrape before the before scrape",
       {{kP, {0.9}}, {kB, {0.1}}, {kP, {0.4}}, {kA, {0}}},
       0.4,
       0.4},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const GaugeSummary summary = SummarizeInReplay(c.scrapes);
    REQUIRE(summary.mean.has_value() == c.mean.has_value());
    REQUIRE(summary.max.has_value() == c.max.has_value());
    if (c.mean) CHECK(*summary.mean == Approx(*c.mean));
    if (c.max) CHECK(*summary.max == Approx(*c.max));
  }
}

// The runner answered its last request at 12 s and exited at 20 s; the periodic
// scrapes at 16 s read the idle engine (vLLM counts freed blocks as free) and must not count.
TEST_CASE("SummarizeInReplay: scrapes after the runner's last response do not count", "[sampler]") {
  const std::vector<GaugeScrape> scrapes = {{kB, {0.0}, 0},  {kP, {0.5}, 4},   {kP, {0.7}, 8},
                                            {kP, {0.6}, 12}, {kP, {0.02}, 16}, {kA, {0.0}, 20}};
  const GaugeSummary all = SummarizeInReplay(scrapes);
  CHECK(all.scrapes == 4);
  CHECK(*all.mean == Approx((0.5 + 0.7 + 0.6 + 0.02) / 4));
  const GaugeSummary replay = SummarizeInReplay(scrapes, 12.0);
  CHECK(replay.scrapes == 3);
  CHECK(*replay.mean == Approx(0.6));
  CHECK(*replay.max == Approx(0.7));
  // A last response before every periodic scrape: nothing in-replay, absent rather than 0.
  const GaugeSummary none = SummarizeInReplay(scrapes, 1.0);
  CHECK(none.scrapes == 0);
  CHECK_FALSE(none.mean.has_value());
}

TEST_CASE("SummedIncrease: each replica's increase, resets handled, summed", "[sampler]") {
  struct Case {
    const char* name;
    std::vector<std::vector<Point>> replicas;
    std::optional<double> increase;
  };
  const Case cases[] = {
      {"two replicas", {{{0, 100}, {5, 150}, {10, 300}}, {{0, 40}, {10, 90}}}, 200 + 50},
      // Replica 1 restarted: 0 -> 80, reset to 10, -> 30: 80 + 30 = 110.
      {"a restarted replica", {{{0, 0}, {5, 80}, {10, 10}, {15, 30}}}, 110},
      // A replica with one point (it died after "before") adds nothing.
      {"a replica with one point", {{{0, 10}, {10, 70}}, {{0, 5}}}, 60},
      {"absent on every replica", {{}, {}}, std::nullopt},
      {"no replicas", {}, std::nullopt},
      {"no increase is 0, not absent", {{{0, 7}, {10, 7}}}, 0},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::optional<double> increase = SummedIncrease(c.replicas);
    REQUIRE(increase.has_value() == c.increase.has_value());
    if (c.increase) CHECK(*increase == Approx(*c.increase));
  }
}

}  // namespace
}  // namespace kvbench::sampler
