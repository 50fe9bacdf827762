// nvml_probe: reads NVIDIA GPU telemetry through NvmlGpuTelemetry and prints it, to check the
// dlopen'ed NVML path on a real GPU machine. Standard C++ and libdl only; from the repository
// root it builds with exactly:
// clang-format off
//   g++ -std=c++17 -O2 -o nvml_probe tests/tools/nvml_probe.cc agent/telemetry/nvml_gpu_telemetry.cc -ldl
// clang-format on
// (and as kv-nvml-probe in the CMake build). Usage: nvml_probe [SAMPLES [INTERVAL_MS]]
//
// Prints one line per GPU per sample (index, name, power W, utilization %, memory used/total
// MiB), by default 3 samples 1 s apart. When NVML is unavailable (no driver, no library) it says
// why and exits 0: that is a normal state for a host, not a failure. Exit 64 on bad arguments.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

// By relative path, not from the project root: the g++ command above passes no -I.
#include "../../agent/telemetry/nvml_gpu_telemetry.h"

namespace {

using kvbench::telemetry::GpuReading;
using kvbench::telemetry::NvmlGpuTelemetry;

constexpr int kDefaultSamples = 3;
constexpr int kDefaultIntervalMs = 1000;
constexpr int kUsageExitCode = 64;
constexpr double kBytesPerMiB = 1024.0 * 1024.0;

std::string Format(const std::optional<double>& value, const char* format) {
  if (!value) return "n/a";
  char text[64];
  std::snprintf(text, sizeof(text), format, *value);
  return text;
}

std::string MiB(const std::optional<int64_t>& bytes) {
  if (!bytes) return "n/a";
  return Format(static_cast<double>(*bytes) / kBytesPerMiB, "%.0f");
}

void PrintReading(const GpuReading& reading) {
  std::printf("  gpu %d  %-28s  power %s W  util %s %%  memory %s / %s MiB\n", reading.index,
              reading.name.empty() ? "(no name)" : reading.name.c_str(),
              Format(reading.power_w, "%.1f").c_str(),
              Format(reading.utilization_pct, "%.0f").c_str(),
              MiB(reading.memory_used_bytes).c_str(), MiB(reading.memory_total_bytes).c_str());
  for (const std::string& error : reading.errors) std::printf("    (%s)\n", error.c_str());
}

// The non-negative integer in `text`, or nullopt.
std::optional<int> ParseCount(const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 0 || value > 1000000) return std::nullopt;
  return static_cast<int>(value);
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<int> samples = kDefaultSamples;
  std::optional<int> interval_ms = kDefaultIntervalMs;
  if (argc > 1) samples = ParseCount(argv[1]);
  if (argc > 2) interval_ms = ParseCount(argv[2]);
  if (argc > 3 || !samples || !interval_ms) {
    std::fprintf(stderr, "usage: %s [SAMPLES [INTERVAL_MS]]\n", argv[0]);
    return kUsageExitCode;
  }

  std::string reason;
  std::unique_ptr<NvmlGpuTelemetry> nvml = NvmlGpuTelemetry::Open(&reason);
  if (nvml == nullptr) {
    std::printf("NVML unavailable, GPU telemetry off: %s\n", reason.c_str());
    return 0;
  }
  std::printf("NVML: %d GPU(s) via %s\n", nvml->device_count(), kvbench::telemetry::kNvmlLibrary);
  for (int sample = 1; sample <= *samples; ++sample) {
    if (sample > 1) std::this_thread::sleep_for(std::chrono::milliseconds(*interval_ms));
    std::printf("sample %d/%d\n", sample, *samples);
    for (const GpuReading& reading : nvml->Read()) PrintReading(reading);
    std::fflush(stdout);
  }
  return 0;
}
