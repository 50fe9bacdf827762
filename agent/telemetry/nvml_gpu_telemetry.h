#pragma once

// NVIDIA GPU telemetry through NVML, loaded at run time with dlopen: kvbench has no build
// dependency on NVIDIA headers or libraries, and runs unchanged on hosts without the driver.
//
// Standard C++ and libdl only (no Abseil, no kvbench headers), and includes by file name: this
// pair is also compiled stand-alone on GPU machines, with the g++ command at the top of
// tests/tools/nvml_probe.cc.

#include <memory>
#include <string>
#include <vector>

#include "gpu_reading.h"

namespace kvbench::telemetry {

// The NVML shared library as the CUDA driver installs it.
inline constexpr char kNvmlLibrary[] = "libnvidia-ml.so.1";

namespace nvml_internal {
struct Api;
}  // namespace nvml_internal

// An initialised NVML session (nvmlInit_v2 .. nvmlShutdown) and the device handles it found.
// Thread-safe: Read() may be called from several threads at once (NVML is thread-safe and this
// class holds no mutable state after Open()).
class NvmlGpuTelemetry {
 public:
  // Loads `library` and initialises NVML. Returns nullptr when NVML cannot be used here (no
  // library, a library without the symbols, nvmlInit_v2 failing because no driver is loaded):
  // that means "GPU telemetry unavailable", not an error. The reason is stored in `*reason` when
  // `reason` is not null ("cannot load libnvidia-ml.so.1: ...").
  static std::unique_ptr<NvmlGpuTelemetry> Open(std::string* reason = nullptr);
  static std::unique_ptr<NvmlGpuTelemetry> Open(const std::string& library, std::string* reason);

  // nvmlShutdown, then dlclose.
  ~NvmlGpuTelemetry();
  NvmlGpuTelemetry(const NvmlGpuTelemetry&) = delete;
  NvmlGpuTelemetry& operator=(const NvmlGpuTelemetry&) = delete;

  // The number of devices NVML reported at Open() (including any whose handle it then refused).
  int device_count() const { return static_cast<int>(devices_.size()); }
  // Read once at Open(), "" when NVML could not say: the driver's version
  // (nvmlSystemGetDriverVersion, "580.159.04") and the newest CUDA version it supports
  // (nvmlSystemGetCudaDriverVersion, "13.0").
  const std::string& driver_version() const { return driver_version_; }
  const std::string& cuda_driver_version() const { return cuda_driver_version_; }

  // One reading per device, in index order. A field whose NVML call fails is nullopt and the
  // failure is described in GpuReading::errors. Names are read once, at Open().
  std::vector<GpuReading> Read() const;

 private:
  struct Device {
    void* handle = nullptr;  // nvmlDevice_t; null when nvmlDeviceGetHandleByIndex_v2 failed
    std::string name;
    std::string handle_error;  // why handle is null
  };

  NvmlGpuTelemetry(void* library, std::unique_ptr<nvml_internal::Api> api);
  Device OpenDevice(unsigned int index) const;
  GpuReading ReadDevice(int index, const Device& device) const;
  std::string ErrorString(int result) const;

  void* const library_;  // dlopen handle
  const std::unique_ptr<nvml_internal::Api> api_;
  std::vector<Device> devices_;
  std::string driver_version_;
  std::string cuda_driver_version_;
};

}  // namespace kvbench::telemetry
