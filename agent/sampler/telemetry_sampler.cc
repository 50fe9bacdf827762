#include "agent/sampler/telemetry_sampler.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "agent/sampler/derived_metrics.h"
#include "agent/telemetry/proc_stat.h"
#include "common/log/logging.h"

namespace kvbench::sampler {

template <typename T>
void TelemetrySampler::Span<T>::Add(T value, absl::Duration at) {
  if (!first) {
    first = value;
    first_at = at;
  }
  last = value;
  last_at = at;
}

TelemetrySampler::TelemetrySampler(Options options, Clock* clock)
    : options_(std::move(options)), clock_(clock) {
  if (options_.gpu) {
    std::string reason;
    nvml_ = telemetry::NvmlGpuTelemetry::Open(&reason);
    if (nvml_ == nullptr && options_.amd_runner) {
      absl::StatusOr<std::unique_ptr<telemetry::AmdSmiGpuTelemetry>> amd =
          telemetry::AmdSmiGpuTelemetry::Open(options_.amd_runner);
      if (amd.ok()) {
        amd_ = *std::move(amd);
      } else {
        absl::StrAppend(&reason, "; AMD: ", amd.status().message());
      }
    }
    if (nvml_ == nullptr && amd_ == nullptr) {
      KV_LOG(INFO) << "GPU telemetry unavailable reason=" << reason;
    }
  }
  if (!options_.disk_path.empty()) {
    absl::StatusOr<telemetry::BlockDevice> device = telemetry::DeviceForPath(options_.disk_path);
    if (device.ok()) {
      disk_ = *device;
    } else {
      KV_LOG(WARNING) << "no disk metrics path=" << options_.disk_path
                      << " reason=" << device.status().message();
    }
  }
}

std::optional<telemetry::CpuTimes> TelemetrySampler::Sample() {
  const absl::Duration now = clock_->Monotonic();
  if (nvml_ != nullptr) AddGpuReadings(nvml_->Read());
  if (amd_ != nullptr) {
    absl::StatusOr<std::vector<telemetry::GpuReading>> readings = amd_->Read();
    if (readings.ok()) {
      AddGpuReadings(*readings);
    } else {
      KV_LOG_EVERY_N_SEC(WARNING, 60)
          << "AMD GPU telemetry failed: " << readings.status().message();
    }
  }
  std::optional<telemetry::CpuTimes> cpu_now;
  if (absl::StatusOr<telemetry::CpuTimes> cpu = telemetry::ReadCpuTimes(); cpu.ok()) {
    cpu_.Add(*cpu, now);
    cpu_now = *cpu;
  }
  for (const auto& [name, pid] : options_.processes) {
    absl::StatusOr<telemetry::ProcessCpuTicks> ticks =
        telemetry::ReadProcessCpuTicks(telemetry::ProcPidStatPath(pid));
    if (ticks.ok()) processes_[name].Add(*ticks, now);
  }
  if (disk_) {
    absl::StatusOr<telemetry::DiskStatsEntry> entry = telemetry::ReadDiskStats(disk_->number);
    if (entry.ok()) disk_readings_.Add(entry->reading, now);
  }
  return cpu_now;
}

void TelemetrySampler::AddGpuReadings(const std::vector<telemetry::GpuReading>& readings) {
  for (const telemetry::GpuReading& reading : readings) {
    GpuTotals& totals = gpus_[reading.index];
    totals.name = reading.name;
    if (reading.power_w) {
      totals.power_sum += *reading.power_w;
      ++totals.power_n;
    }
    if (reading.utilization_pct) {
      totals.util_sum += *reading.utilization_pct;
      ++totals.util_n;
    }
    if (reading.memory_used_bytes) {
      totals.memory_used_max =
          std::max(totals.memory_used_max.value_or(0), *reading.memory_used_bytes);
    }
    if (reading.memory_total_bytes) totals.memory_total = reading.memory_total_bytes;
  }
}

v1::HostTelemetry TelemetrySampler::HostResult() const {
  v1::HostTelemetry host;
  host.set_gpu_available(nvml_ != nullptr || amd_ != nullptr);
  for (const auto& [index, totals] : gpus_) {
    v1::GpuTelemetry* gpu = host.add_gpus();
    gpu->set_index(index);
    gpu->set_name(totals.name);
    if (totals.power_n > 0) gpu->set_power_w_mean(totals.power_sum / totals.power_n);
    if (totals.util_n > 0) gpu->set_utilization_pct_mean(totals.util_sum / totals.util_n);
    if (totals.memory_used_max) gpu->set_memory_used_bytes_max(*totals.memory_used_max);
    if (totals.memory_total) gpu->set_memory_total_bytes(*totals.memory_total);
  }
  if (cpu_.first && cpu_.last) {
    if (auto busy = CpuUtilization(*cpu_.first, *cpu_.last)) {
      host.set_cpu_utilization_pct_mean(*busy);
    }
  }
  const int64_t ticks_per_second = ::sysconf(_SC_CLK_TCK);
  for (const auto& [name, span] : processes_) {
    if (!span.first || !span.last) continue;
    if (auto pct = ProcessCpuPercent(*span.first, *span.last, ticks_per_second,
                                     span.last_at - span.first_at)) {
      (*host.mutable_process_cpu_pct_mean())[name] = *pct;
    }
  }
  return host;
}

std::optional<v1::DiskMetrics> TelemetrySampler::DiskResult() const {
  if (!disk_ || !disk_readings_.first || !disk_readings_.last) return std::nullopt;
  std::optional<DiskRates> rates =
      ComputeDiskRates(*disk_readings_.first, *disk_readings_.last,
                       disk_readings_.last_at - disk_readings_.first_at);
  v1::DiskMetrics disk;
  disk.set_device(disk_->name);
  if (!rates) return disk;
  disk.set_read_gb_per_s(rates->read_gb_per_s);
  disk.set_write_gb_per_s(rates->write_gb_per_s);
  disk.set_read_iops(rates->read_iops);
  disk.set_write_iops(rates->write_iops);
  if (rates->read_latency_ms) disk.set_read_latency_ms(*rates->read_latency_ms);
  if (rates->write_latency_ms) disk.set_write_latency_ms(*rates->write_latency_ms);
  disk.set_utilization_pct(rates->utilization_percent);
  disk.set_queue_depth_mean(rates->mean_queue_depth);
  disk.set_read_bytes_total(static_cast<int64_t>(rates->read_bytes));
  disk.set_write_bytes_total(static_cast<int64_t>(rates->write_bytes));
  return disk;
}

}  // namespace kvbench::sampler
