#pragma once

#include <cstdint>
#include <optional>

#include "absl/time/time.h"
#include "agent/sampler/rate_math.h"
#include "agent/telemetry/proc_readings.h"

namespace kvbench::sampler {

// The raw /proc readings (agent/telemetry/proc_readings.h).
using telemetry::CpuTimes;
using telemetry::DiskStatsReading;
using telemetry::ProcessCpuTicks;

// Pure conversions from two raw readings (before and after a run, or two samples) into the result
// fields of DESIGN.md "Measurements": disk, CPU and LMCache throughput. nullopt means "not
// measured" and is reported as null, never as 0.

// /proc/diskstats sectors are 512 bytes whatever the device's logical block size.
inline constexpr double kDiskSectorBytes = 512;
// GB/s here, as in LMCache's throughput histograms, is 10^9 bytes per second.
inline constexpr double kBytesPerGb = 1e9;

struct DiskRates {
  double read_gb_per_s = 0;
  double write_gb_per_s = 0;
  double read_iops = 0;
  double write_iops = 0;
  std::optional<double> read_latency_ms;   // Δms_reading / Δreads; null without reads
  std::optional<double> write_latency_ms;  // Δms_writing / Δwrites; null without writes
  double utilization_percent = 0;          // Δms_doing_io / elapsed ms x 100, at most 100
  double mean_queue_depth = 0;             // Δweighted_ms / elapsed ms
  uint64_t read_bytes = 0;                 // Δsectors_read x 512
  uint64_t write_bytes = 0;                // Δsectors_written x 512
};

// The rates of one device between two readings `elapsed` apart. The kernel prints the five
// millisecond fields as 32-bit unsigned values, so they wrap every ~49.7 days; their deltas are
// taken modulo 2^32 (one wrap between the readings is handled). nullopt when elapsed <= 0 or one
// of the 64-bit counters went backwards (the device was replaced or the readings swapped).
std::optional<DiskRates> ComputeDiskRates(const DiskStatsReading& before,
                                          const DiskStatsReading& after, absl::Duration elapsed);

// Busy % of the whole machine between two readings: 100 x (Δtotal - Δidle - Δiowait) / Δtotal,
// where total is the sum of the eight fields (steal counts as busy: the CPU was not ours to use).
// A field that went backwards counts as 0 (proc(5): iowait may decrease). nullopt when no tick
// passed.
std::optional<double> CpuUtilization(const CpuTimes& before, const CpuTimes& after);

// CPU used by one process as % of one core: Δ(utime + stime) / ticks_per_second / elapsed x 100
// (can exceed 100 for a multi-threaded process). ticks_per_second is sysconf(_SC_CLK_TCK).
// nullopt when elapsed <= 0, ticks_per_second <= 0 or the ticks went backwards (the pid was
// reused by another process).
std::optional<double> ProcessCpuPercent(const ProcessCpuTicks& before, const ProcessCpuTicks& after,
                                        int64_t ticks_per_second, absl::Duration elapsed);

// Mean GB/s of LMCache's load/store throughput histograms between two scrapes
// (lmcache_mp_{l0_l1,l2}_{load,store}_throughput_GB_per_second: one observation per operation):
// Δsum / Δcount. This is the mean of per-operation throughputs, not bytes over wall time. LMCache
// exports nothing until its first store or retrieve (reference/lmcache.md §3.1), so a nullopt
// `before` (a scrape that succeeded without the histogram) counts as zero totals; a failed
// `before` scrape is the caller's to report as null. nullopt (never 0) when `after` lacks the
// histogram or Δcount <= 0.
std::optional<double> ThroughputFromHistogram(const std::optional<HistogramTotals>& before,
                                              const std::optional<HistogramTotals>& after);

// Bytes of one L2 chunk, derived from what LMCache exports (it has no L2 byte counter: its L2
// subscriber counts requests and chunks, subscribers/metrics/l2.py@0b5897e9): the pool's usage
// gauge (lmcache_mp_l2_usage_bytes) over the chunks it holds, stored - evicted
// (lmcache_mp_l2_store_completed_objects_chunks_total - lmcache_mp_l2_evicted_objects_chunks_total)
// at one scrape. One model per cache server makes every chunk the same size. nullopt when the
// pool holds no chunk or the usage is not positive.
std::optional<double> L2BytesPerChunk(double usage_bytes, double stored_chunks,
                                      double evicted_chunks);

}  // namespace kvbench::sampler
