#include "agent/sampler/derived_metrics.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "tests/unit/agent/sampler/rate_math_test_helpers.h"

namespace kvbench::sampler {
namespace {

using testing::CheckOptional;

// A busy NVMe device before a 2 s interval.
DiskStatsReading DiskBefore() {
  DiskStatsReading r;
  r.reads_completed = 1000;
  r.sectors_read = 200000;
  r.ms_reading = 5000;
  r.writes_completed = 500;
  r.sectors_written = 100000;
  r.ms_writing = 3000;
  r.ios_in_progress = 2;
  r.ms_doing_io = 8000;
  r.weighted_ms = 20000;
  return r;
}

TEST_CASE("ComputeDiskRates from two diskstats readings", "[sampler]") {
  DiskStatsReading after = DiskBefore();
  after.reads_completed += 2000;
  after.sectors_read += 4000000;  // 2.048e9 bytes
  after.ms_reading += 4000;
  after.writes_completed += 1000;
  after.sectors_written += 2000000;  // 1.024e9 bytes
  after.ms_writing += 5000;
  after.ios_in_progress = 3;
  after.ms_doing_io += 1500;
  after.weighted_ms += 30000;
  const auto rates = ComputeDiskRates(DiskBefore(), after, absl::Seconds(2));
  REQUIRE(rates.has_value());
  CHECK(rates->read_bytes == 2048000000u);          // 4e6 x 512
  CHECK(rates->write_bytes == 1024000000u);         // 2e6 x 512
  CHECK(rates->read_gb_per_s == Approx(1.024));     // 2.048 GB / 2 s
  CHECK(rates->write_gb_per_s == Approx(0.512));    // 1.024 GB / 2 s
  CHECK(rates->read_iops == Approx(1000));          // 2000 / 2 s
  CHECK(rates->write_iops == Approx(500));          // 1000 / 2 s
  CheckOptional(rates->read_latency_ms, 2.0);       // 4000 ms / 2000 reads
  CheckOptional(rates->write_latency_ms, 5.0);      // 5000 ms / 1000 writes
  CHECK(rates->utilization_percent == Approx(75));  // 1500 ms / 2000 ms
  CHECK(rates->mean_queue_depth == Approx(15));     // 30000 ms / 2000 ms
}

TEST_CASE("ComputeDiskRates edge cases", "[sampler]") {
  SECTION("idle device: zeros, latencies null") {
    const auto rates = ComputeDiskRates(DiskBefore(), DiskBefore(), absl::Seconds(15));
    REQUIRE(rates.has_value());
    CHECK(rates->read_gb_per_s == 0);
    CHECK(rates->write_iops == 0);
    CHECK(rates->read_bytes == 0u);
    CHECK_FALSE(rates->read_latency_ms.has_value());
    CHECK_FALSE(rates->write_latency_ms.has_value());
    CHECK(rates->utilization_percent == 0);
    CHECK(rates->mean_queue_depth == 0);
  }
  SECTION("reads only: write latency null") {
    DiskStatsReading after = DiskBefore();
    after.reads_completed += 10;
    after.ms_reading += 5;
    const auto rates = ComputeDiskRates(DiskBefore(), after, absl::Seconds(1));
    REQUIRE(rates.has_value());
    CheckOptional(rates->read_latency_ms, 0.5);  // 5 ms / 10 reads
    CHECK_FALSE(rates->write_latency_ms.has_value());
  }
  SECTION("utilization capped at 100%") {
    DiskStatsReading after = DiskBefore();
    after.ms_doing_io += 2100;  // 2100 ms busy in 2000 ms: 105% (accounting skew) -> 100
    const auto rates = ComputeDiskRates(DiskBefore(), after, absl::Seconds(2));
    REQUIRE(rates.has_value());
    CHECK(rates->utilization_percent == 100);
  }
  SECTION("32-bit millisecond fields wrap") {
    DiskStatsReading before = DiskBefore();
    before.ms_reading = 4294967000u;  // 2^32 - 296
    DiskStatsReading after = before;
    after.reads_completed += 500;
    after.ms_reading = 704;  // Δ = 296 + 704 = 1000 ms
    const auto rates = ComputeDiskRates(before, after, absl::Seconds(1));
    REQUIRE(rates.has_value());
    CheckOptional(rates->read_latency_ms, 2.0);  // 1000 ms / 500 reads
  }
  SECTION("no elapsed time: null") {
    CHECK_FALSE(ComputeDiskRates(DiskBefore(), DiskBefore(), absl::ZeroDuration()).has_value());
    CHECK_FALSE(ComputeDiskRates(DiskBefore(), DiskBefore(), absl::Seconds(-1)).has_value());
  }
  SECTION("a 64-bit counter went backwards (device replaced): null") {
    DiskStatsReading after = DiskBefore();
    after.sectors_written -= 1;
    CHECK_FALSE(ComputeDiskRates(DiskBefore(), after, absl::Seconds(1)).has_value());
  }
}

TEST_CASE("CpuUtilization from two /proc/stat cpu lines", "[sampler]") {
  struct Case {
    const char* name;
    CpuTimes before;
    CpuTimes after;
    std::optional<double> expected;
  };
  //                      user  nice  system idle  iowait irq  softirq steal
  const CpuTimes base = {1000, 0, 500, 8000, 500, 0, 0, 0};
  const std::vector<Case> cases = {
      // Δ: user 600, system 200, idle 900, iowait 100, irq 100, softirq 100: total 2000,
      // not busy 1000 -> 50%.
      {"half busy", base, {1600, 0, 700, 8900, 600, 100, 100, 0}, 50.0},
      // Δ: idle 1000 only -> 0%.
      {"idle", base, {1000, 0, 500, 9000, 500, 0, 0, 0}, 0.0},
      // Δ: user 300, nice 100, steal 100 -> 500 of 500 -> 100%.
      {"fully busy, steal counts as busy", base, {1300, 100, 500, 8000, 500, 0, 0, 100}, 100.0},
      // Δ: user 1000, idle 1000, iowait -10 (proc(5) allows it) counted 0: 1000 / 2000 -> 50%.
      {"iowait went backwards", base, {2000, 0, 500, 9000, 490, 0, 0, 0}, 50.0},
      // Δ: iowait 250, user 750: iowait is not busy: 750 / 1000 -> 75%.
      {"iowait is idle", base, {1750, 0, 500, 8000, 750, 0, 0, 0}, 75.0},
      {"no ticks: null", base, base, std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CheckOptional(CpuUtilization(c.before, c.after), c.expected);
  }
}

TEST_CASE("ProcessCpuPercent is % of one core", "[sampler]") {
  struct Case {
    const char* name;
    ProcessCpuTicks before;
    ProcessCpuTicks after;
    int64_t ticks_per_second;
    absl::Duration elapsed;
    std::optional<double> expected;
  };
  const std::vector<Case> cases = {
      // Δ = 150 + 50 = 200 ticks at 100/s = 2 s of CPU in 4 s -> 50%.
      {"half a core", {100, 50}, {250, 100}, 100, absl::Seconds(4), 50.0},
      // Δ = 800 ticks = 8 s of CPU in 2 s -> 400% (four cores' worth).
      {"multi-threaded above 100%", {0, 0}, {600, 200}, 100, absl::Seconds(2), 400.0},
      // 250 Hz ticks: Δ 125 = 0.5 s in 500 ms -> 100%.
      {"other tick rate", {0, 0}, {100, 25}, 250, absl::Milliseconds(500), 100.0},
      {"idle process: 0", {70, 30}, {70, 30}, 100, absl::Seconds(15), 0.0},
      {"no elapsed time: null", {0, 0}, {10, 0}, 100, absl::ZeroDuration(), std::nullopt},
      {"no tick rate: null", {0, 0}, {10, 0}, 0, absl::Seconds(1), std::nullopt},
      {"ticks went backwards (pid reused): null",
       {500, 100},
       {10, 5},
       100,
       absl::Seconds(1),
       std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CheckOptional(ProcessCpuPercent(c.before, c.after, c.ticks_per_second, c.elapsed), c.expected);
  }
}

TEST_CASE("ThroughputFromHistogram is the mean GB/s per operation", "[sampler]") {
  using H = HistogramTotals;
  struct Case {
    const char* name;
    std::optional<H> before;
    std::optional<H> after;
    std::optional<double> expected;
  };
  const std::vector<Case> cases = {
      // (40 - 10) GB/s summed over (10 - 4) operations -> 5 GB/s.
      {"between two scrapes", H{10, 4}, H{40, 10}, 5.0},
      // LMCache exported nothing before its first store: zero totals. 12 / 3 -> 4 GB/s.
      {"histogram absent before the run", std::nullopt, H{12, 3}, 4.0},
      {"no operations during the run: null", H{10, 4}, H{10, 4}, std::nullopt},
      {"histogram absent after: null", H{10, 4}, std::nullopt, std::nullopt},
      {"absent in both: null", std::nullopt, std::nullopt, std::nullopt},
      {"count went down (server restarted): null", H{10, 4}, H{3, 1}, std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CheckOptional(ThroughputFromHistogram(c.before, c.after), c.expected);
  }
}

}  // namespace
}  // namespace kvbench::sampler

namespace kvbench::sampler {
namespace {

TEST_CASE("L2BytesPerChunk: the L2 pool's usage over the chunks it holds") {
  CHECK(L2BytesPerChunk(3.0 * 33554432, 5, 2) == 33554432.0);
  CHECK(L2BytesPerChunk(33554432, 1, 0) == 33554432.0);
  CHECK_FALSE(L2BytesPerChunk(0, 5, 2).has_value());         // nothing held
  CHECK_FALSE(L2BytesPerChunk(33554432, 2, 2).has_value());  // all evicted
  CHECK_FALSE(L2BytesPerChunk(33554432, 0, 0).has_value());  // nothing stored yet
}

}  // namespace
}  // namespace kvbench::sampler
