#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agent/telemetry/amd_smi_gpu_telemetry.h"
#include "agent/telemetry/command_runner.h"
#include "agent/telemetry/disk_stats.h"
#include "agent/telemetry/gpu_reading.h"
#include "agent/telemetry/nvml_gpu_telemetry.h"
#include "agent/telemetry/proc_readings.h"
#include "common/time/clock.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::sampler {

// Host telemetry on the sampler's ticks: GPU power/utilization/memory through NVML
// (loaded at run time; none on the node = gpu_available false, not an error), whole-machine CPU
// from /proc/stat, each supervised process's CPU from /proc/<pid>/stat and, for NVME, the block
// device under the L2 pool dir from /proc/diskstats. Without NVML, AMD GPUs are read through
// amd-smi (or rocm-smi) when on PATH. Not thread-safe: the scenario's thread drives it.
class TelemetrySampler {
 public:
  struct Options {
    std::vector<std::pair<std::string, int>> processes;  // (name, pid) to follow
    std::string disk_path;  // NVME: the L2 pool dir; "" = no disk metrics
    bool gpu = true;        // try NVML, then (AMD nodes) amd-smi / rocm-smi
    // Runs amd-smi / rocm-smi (LauncherCommandRunner); unset = NVML only.
    telemetry::CommandRunner amd_runner;
  };

  // `clock` must outlive the sampler.
  TelemetrySampler(Options options, Clock* clock);

  // One reading of every source. Returns this reading's whole-machine CPU counters (for
  // samples.jsonl: host_cpu_sample.h), nullopt when /proc/stat could not be read.
  std::optional<telemetry::CpuTimes> Sample();

  v1::HostTelemetry HostResult() const;
  // nullopt without disk_path, or when its device has no /proc/diskstats line (then logged).
  std::optional<v1::DiskMetrics> DiskResult() const;

 private:
  void AddGpuReadings(const std::vector<telemetry::GpuReading>& readings);

  struct GpuTotals {
    std::string name;
    double power_sum = 0;
    int power_n = 0;
    double util_sum = 0;
    int util_n = 0;
    std::optional<int64_t> memory_used_max;
    std::optional<int64_t> memory_total;
  };
  template <typename T>
  struct Span {  // the first and last reading, with when they were taken
    std::optional<T> first, last;
    absl::Duration first_at, last_at;
    void Add(T value, absl::Duration at);
  };

  Options options_;
  Clock* clock_;
  std::unique_ptr<telemetry::NvmlGpuTelemetry> nvml_;
  std::unique_ptr<telemetry::AmdSmiGpuTelemetry> amd_;  // only without NVML
  std::optional<telemetry::BlockDevice> disk_;
  std::map<int, GpuTotals> gpus_;
  Span<telemetry::CpuTimes> cpu_;
  std::map<std::string, Span<telemetry::ProcessCpuTicks>> processes_;
  Span<telemetry::DiskStatsReading> disk_readings_;
};

}  // namespace kvbench::sampler
