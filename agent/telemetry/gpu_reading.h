#pragma once

// One GPU's telemetry at one moment. Standard C++ only: this header is also compiled stand-alone
// with the NVML probe (tests/tools/nvml_probe.cc) on GPU machines that lack kvbench's libraries.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kvbench::telemetry {

struct GpuReading {
  int index = 0;     // the vendor tool's device index (NVML index, amd-smi "gpu", rocm-smi cardN)
  std::string name;  // "NVIDIA H200"; empty when the source does not say
  // Each field is nullopt when the call or the key that provides it failed or is unsupported.
  std::optional<double> power_w;
  std::optional<double> utilization_pct;  // busy time of the compute engine over the last sample
  std::optional<int64_t> memory_used_bytes;
  std::optional<int64_t> memory_total_bytes;
  // Why fields are missing, one entry per failed call ("power: Not Supported"), for logs.
  std::vector<std::string> errors;
};

}  // namespace kvbench::telemetry
