// Standard C++ and libdl only, includes by file name: see nvml_gpu_telemetry.h.
#include "nvml_gpu_telemetry.h"

#include <dlfcn.h>

#include <string>
#include <utility>
#include <vector>

namespace kvbench::telemetry {
namespace nvml_internal {

// The few NVML declarations used, written from NVIDIA's nvml.h documentation so that no NVIDIA
// header is needed to build. nvmlReturn_t is a C enum (int-sized); NVML_SUCCESS is 0.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlMemory_t {
  unsigned long long total;  // bytes
  unsigned long long free;
  unsigned long long used;
};
struct nvmlUtilization_t {
  unsigned int gpu;     // percent of the last sample period a kernel was running
  unsigned int memory;  // percent of it device memory was read or written
};

struct Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*get_count)(unsigned int*) = nullptr;
  nvmlReturn_t (*get_handle)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*get_name)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*get_power_mw)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*get_utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*get_memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  // Optional (older drivers may lack them): left null when missing.
  nvmlReturn_t (*driver_version)(char*, unsigned int) = nullptr;
  nvmlReturn_t (*cuda_driver_version)(int*) = nullptr;
};

}  // namespace nvml_internal

namespace {

using nvml_internal::Api;
using nvml_internal::nvmlDevice_t;
using nvml_internal::nvmlMemory_t;
using nvml_internal::nvmlReturn_t;
using nvml_internal::nvmlUtilization_t;

constexpr nvmlReturn_t kNvmlSuccess = 0;
// NVML_DEVICE_NAME_V2_BUFFER_SIZE: the longest name nvmlDeviceGetName returns, with its NUL.
constexpr unsigned int kNvmlNameBufferSize = 96;
constexpr double kMilliwattsPerWatt = 1000.0;
// NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE: the longest driver version, with its NUL.
constexpr unsigned int kNvmlDriverVersionBufferSize = 80;

// Resolves `name` in `library` into `*fn`; on failure names the missing symbol in `*missing`.
template <typename Fn>
bool LoadSymbol(void* library, const char* name, Fn* fn, std::string* missing) {
  void* symbol = ::dlsym(library, name);
  if (symbol == nullptr) {
    if (missing->empty()) *missing = name;
    return false;
  }
  *fn = reinterpret_cast<Fn>(symbol);
  return true;
}

// Every symbol, or false with the first missing one in `*missing`.
bool LoadApi(void* library, Api* api, std::string* missing) {
  bool ok = LoadSymbol(library, "nvmlInit_v2", &api->init, missing);
  ok &= LoadSymbol(library, "nvmlShutdown", &api->shutdown, missing);
  ok &= LoadSymbol(library, "nvmlDeviceGetCount_v2", &api->get_count, missing);
  ok &= LoadSymbol(library, "nvmlDeviceGetHandleByIndex_v2", &api->get_handle, missing);
  ok &= LoadSymbol(library, "nvmlDeviceGetName", &api->get_name, missing);
  ok &= LoadSymbol(library, "nvmlDeviceGetPowerUsage", &api->get_power_mw, missing);
  ok &= LoadSymbol(library, "nvmlDeviceGetUtilizationRates", &api->get_utilization, missing);
  ok &= LoadSymbol(library, "nvmlDeviceGetMemoryInfo", &api->get_memory, missing);
  ok &= LoadSymbol(library, "nvmlErrorString", &api->error_string, missing);
  std::string optional_missing;
  LoadSymbol(library, "nvmlSystemGetDriverVersion", &api->driver_version, &optional_missing);
  LoadSymbol(library, "nvmlSystemGetCudaDriverVersion", &api->cuda_driver_version,
             &optional_missing);
  return ok;
}

// The driver's version, "" when NVML cannot say.
std::string DriverVersion(const Api& api) {
  char version[kNvmlDriverVersionBufferSize] = {};
  if (api.driver_version == nullptr ||
      api.driver_version(version, kNvmlDriverVersionBufferSize) != kNvmlSuccess) {
    return "";
  }
  version[kNvmlDriverVersionBufferSize - 1] = '\0';
  return version;
}

// "13.0" from NVML's 13000 (major x 1000 + minor x 10), "" when NVML cannot say.
std::string CudaDriverVersion(const Api& api) {
  int version = 0;
  if (api.cuda_driver_version == nullptr || api.cuda_driver_version(&version) != kNvmlSuccess ||
      version <= 0) {
    return "";
  }
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// "Driver Not Loaded (9)".
std::string ErrorText(const Api& api, nvmlReturn_t result) {
  const char* text = api.error_string(result);
  return std::string(text != nullptr ? text : "unknown error") + " (" + std::to_string(result) +
         ")";
}

void SetReason(std::string* reason, std::string text) {
  if (reason != nullptr) *reason = std::move(text);
}

}  // namespace

std::unique_ptr<NvmlGpuTelemetry> NvmlGpuTelemetry::Open(std::string* reason) {
  return Open(kNvmlLibrary, reason);
}

std::unique_ptr<NvmlGpuTelemetry> NvmlGpuTelemetry::Open(const std::string& library,
                                                         std::string* reason) {
  ::dlerror();  // clear any stale error
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    SetReason(reason,
              "cannot load " + library + ": " + (error != nullptr ? error : "dlopen failed"));
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  std::string missing;
  if (!LoadApi(handle, api.get(), &missing)) {
    ::dlclose(handle);
    SetReason(reason, library + " is not a usable NVML: it lacks " + missing);
    return nullptr;
  }
  const nvmlReturn_t init = api->init();
  if (init != kNvmlSuccess) {
    SetReason(reason, "nvmlInit_v2 failed: " + ErrorText(*api, init));
    ::dlclose(handle);
    return nullptr;
  }
  // From here the destructor calls nvmlShutdown and dlclose.
  std::unique_ptr<NvmlGpuTelemetry> telemetry(new NvmlGpuTelemetry(handle, std::move(api)));
  unsigned int count = 0;
  const nvmlReturn_t counted = telemetry->api_->get_count(&count);
  if (counted != kNvmlSuccess) {
    SetReason(reason, "nvmlDeviceGetCount_v2 failed: " + telemetry->ErrorString(counted));
    return nullptr;
  }
  for (unsigned int i = 0; i < count; ++i) telemetry->devices_.push_back(telemetry->OpenDevice(i));
  telemetry->driver_version_ = DriverVersion(*telemetry->api_);
  telemetry->cuda_driver_version_ = CudaDriverVersion(*telemetry->api_);
  return telemetry;
}

NvmlGpuTelemetry::Device NvmlGpuTelemetry::OpenDevice(unsigned int index) const {
  Device device;
  nvmlDevice_t handle = nullptr;
  const nvmlReturn_t got = api_->get_handle(index, &handle);
  if (got != kNvmlSuccess) {
    device.handle_error = "handle: " + ErrorString(got);
    return device;
  }
  device.handle = handle;
  char name[kNvmlNameBufferSize] = {};
  if (api_->get_name(handle, name, kNvmlNameBufferSize) == kNvmlSuccess) {
    name[kNvmlNameBufferSize - 1] = '\0';
    device.name = name;
  }
  return device;
}

NvmlGpuTelemetry::NvmlGpuTelemetry(void* library, std::unique_ptr<nvml_internal::Api> api)
    : library_(library), api_(std::move(api)) {}

NvmlGpuTelemetry::~NvmlGpuTelemetry() {
  api_->shutdown();
  ::dlclose(library_);
}

std::vector<GpuReading> NvmlGpuTelemetry::Read() const {
  std::vector<GpuReading> readings;
  readings.reserve(devices_.size());
  for (size_t i = 0; i < devices_.size(); ++i) {
    readings.push_back(ReadDevice(static_cast<int>(i), devices_[i]));
  }
  return readings;
}

GpuReading NvmlGpuTelemetry::ReadDevice(int index, const Device& device) const {
  GpuReading reading;
  reading.index = index;
  reading.name = device.name;
  if (device.handle == nullptr) {
    reading.errors.push_back(device.handle_error);
    return reading;
  }
  auto* handle = static_cast<nvmlDevice_t>(device.handle);

  unsigned int milliwatts = 0;
  const nvmlReturn_t power = api_->get_power_mw(handle, &milliwatts);
  if (power == kNvmlSuccess) {
    reading.power_w = milliwatts / kMilliwattsPerWatt;
  } else {
    reading.errors.push_back("power: " + ErrorString(power));
  }

  nvmlUtilization_t utilization = {};
  const nvmlReturn_t used = api_->get_utilization(handle, &utilization);
  if (used == kNvmlSuccess) {
    reading.utilization_pct = utilization.gpu;
  } else {
    reading.errors.push_back("utilization: " + ErrorString(used));
  }

  nvmlMemory_t memory = {};
  const nvmlReturn_t memory_result = api_->get_memory(handle, &memory);
  if (memory_result == kNvmlSuccess) {
    reading.memory_used_bytes = static_cast<int64_t>(memory.used);
    reading.memory_total_bytes = static_cast<int64_t>(memory.total);
  } else {
    reading.errors.push_back("memory: " + ErrorString(memory_result));
  }
  return reading;
}

std::string NvmlGpuTelemetry::ErrorString(int result) const { return ErrorText(*api_, result); }

}  // namespace kvbench::telemetry
