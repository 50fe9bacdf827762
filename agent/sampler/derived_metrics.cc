#include "agent/sampler/derived_metrics.h"

#include <algorithm>
#include <array>

namespace kvbench::sampler {
namespace {

// after - before of a counter the kernel prints as 32-bit unsigned: correct across one wrap.
uint64_t Delta32(uint64_t before, uint64_t after) {
  return static_cast<uint32_t>(static_cast<uint32_t>(after) - static_cast<uint32_t>(before));
}

// after - before of a 64-bit counter; nullopt when it went backwards.
std::optional<uint64_t> Delta64(uint64_t before, uint64_t after) {
  if (after < before) return std::nullopt;
  return after - before;
}

// Δms / Δios, null without ios.
std::optional<double> MeanLatencyMs(uint64_t ms, uint64_t ios) {
  if (ios == 0) return std::nullopt;
  return static_cast<double>(ms) / static_cast<double>(ios);
}

}  // namespace

std::optional<DiskRates> ComputeDiskRates(const DiskStatsReading& before,
                                          const DiskStatsReading& after, absl::Duration elapsed) {
  const double elapsed_s = absl::ToDoubleSeconds(elapsed);
  if (!(elapsed_s > 0)) return std::nullopt;
  const auto reads = Delta64(before.reads_completed, after.reads_completed);
  const auto sectors_read = Delta64(before.sectors_read, after.sectors_read);
  const auto writes = Delta64(before.writes_completed, after.writes_completed);
  const auto sectors_written = Delta64(before.sectors_written, after.sectors_written);
  if (!reads || !sectors_read || !writes || !sectors_written) return std::nullopt;
  const double elapsed_ms = elapsed_s * 1000;

  DiskRates rates;
  rates.read_bytes = *sectors_read * static_cast<uint64_t>(kDiskSectorBytes);
  rates.write_bytes = *sectors_written * static_cast<uint64_t>(kDiskSectorBytes);
  rates.read_gb_per_s = static_cast<double>(rates.read_bytes) / kBytesPerGb / elapsed_s;
  rates.write_gb_per_s = static_cast<double>(rates.write_bytes) / kBytesPerGb / elapsed_s;
  rates.read_iops = static_cast<double>(*reads) / elapsed_s;
  rates.write_iops = static_cast<double>(*writes) / elapsed_s;
  rates.read_latency_ms = MeanLatencyMs(Delta32(before.ms_reading, after.ms_reading), *reads);
  rates.write_latency_ms = MeanLatencyMs(Delta32(before.ms_writing, after.ms_writing), *writes);
  const double busy_ms = static_cast<double>(Delta32(before.ms_doing_io, after.ms_doing_io));
  rates.utilization_percent = std::min(100.0, busy_ms / elapsed_ms * 100);
  rates.mean_queue_depth =
      static_cast<double>(Delta32(before.weighted_ms, after.weighted_ms)) / elapsed_ms;
  return rates;
}

std::optional<double> CpuUtilization(const CpuTimes& before, const CpuTimes& after) {
  // A field that went backwards contributes no ticks.
  const auto delta = [](uint64_t b, uint64_t a) { return a > b ? a - b : uint64_t{0}; };
  const uint64_t idle = delta(before.idle, after.idle) + delta(before.iowait, after.iowait);
  const std::array<uint64_t, 6> busy_fields = {
      delta(before.user, after.user),       delta(before.nice, after.nice),
      delta(before.system, after.system),   delta(before.irq, after.irq),
      delta(before.softirq, after.softirq), delta(before.steal, after.steal)};
  uint64_t busy = 0;
  for (uint64_t ticks : busy_fields) busy += ticks;
  const uint64_t total = busy + idle;
  if (total == 0) return std::nullopt;
  return 100.0 * static_cast<double>(busy) / static_cast<double>(total);
}

std::optional<double> ProcessCpuPercent(const ProcessCpuTicks& before, const ProcessCpuTicks& after,
                                        int64_t ticks_per_second, absl::Duration elapsed) {
  const double elapsed_s = absl::ToDoubleSeconds(elapsed);
  if (!(elapsed_s > 0) || ticks_per_second <= 0) return std::nullopt;
  const uint64_t ticks_before = before.utime + before.stime;
  const uint64_t ticks_after = after.utime + after.stime;
  if (after.utime < before.utime || after.stime < before.stime) return std::nullopt;
  const double cpu_s =
      static_cast<double>(ticks_after - ticks_before) / static_cast<double>(ticks_per_second);
  return cpu_s / elapsed_s * 100;
}

std::optional<double> ThroughputFromHistogram(const std::optional<HistogramTotals>& before,
                                              const std::optional<HistogramTotals>& after) {
  return MeanBetween(before.value_or(HistogramTotals{}), after);
}

std::optional<double> L2BytesPerChunk(double usage_bytes, double stored_chunks,
                                      double evicted_chunks) {
  const double held = stored_chunks - evicted_chunks;
  if (!(held >= 1) || !(usage_bytes > 0)) return std::nullopt;
  return usage_bytes / held;
}

}  // namespace kvbench::sampler
