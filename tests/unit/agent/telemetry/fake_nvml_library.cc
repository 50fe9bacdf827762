// A stand-in for libnvidia-ml.so.1, built as a shared library so that NvmlGpuTelemetry's whole
// dlopen path runs in tests on machines without NVIDIA. It exports the NVML functions
// NvmlGpuTelemetry uses (C linkage, NVML's signatures as declared in nvml_gpu_telemetry.cc) and
// FakeNvml* controls, which a test reaches by dlopen'ing the same file (same handle, same state).
//
// Script: two GPUs. GPU 0 "Fake GPU A100": 123.456 W, 42 %, 1 GiB used of 80 GiB. GPU 1
// "Fake GPU T4": power NVML_ERROR_NOT_SUPPORTED (3), 7 %, memory NVML_ERROR_UNKNOWN (999).
// Driver 580.159.04, CUDA 13.0.

#include <cstring>

namespace {

constexpr int kSuccess = 0;
constexpr int kErrorUninitialized = 1;
constexpr int kErrorInvalidArgument = 2;
constexpr int kErrorNotSupported = 3;
constexpr int kErrorDriverNotLoaded = 9;
constexpr int kErrorUnknown = 999;
constexpr unsigned int kDeviceCount = 2;
constexpr unsigned long long kGiB = 1ULL << 30;

struct FakeDevice {
  unsigned int index;
};
FakeDevice devices[kDeviceCount] = {{0}, {1}};

int init_result = kSuccess;
int init_calls = 0;
int shutdown_calls = 0;
int open_sessions = 0;

struct Memory {
  unsigned long long total, free, used;
};
struct Utilization {
  unsigned int gpu, memory;
};

int Index(void* device) {
  if (device == &devices[0]) return 0;
  if (device == &devices[1]) return 1;
  return -1;
}

}  // namespace

extern "C" {

// --- controls
void FakeNvmlSetInitResult(int result) { init_result = result; }
int FakeNvmlInitCalls() { return init_calls; }
int FakeNvmlShutdownCalls() { return shutdown_calls; }

// --- NVML
int nvmlInit_v2() {
  ++init_calls;
  if (init_result != kSuccess) return init_result;
  ++open_sessions;
  return kSuccess;
}

int nvmlShutdown() {
  ++shutdown_calls;
  if (open_sessions == 0) return kErrorUninitialized;
  --open_sessions;
  return kSuccess;
}

int nvmlDeviceGetCount_v2(unsigned int* count) {
  if (open_sessions == 0) return kErrorUninitialized;
  *count = kDeviceCount;
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (index >= kDeviceCount) return kErrorInvalidArgument;
  *device = &devices[index];
  return kSuccess;
}

int nvmlDeviceGetName(void* device, char* name, unsigned int length) {
  const char* names[] = {"Fake GPU A100", "Fake GPU T4"};
  const int index = Index(device);
  if (index < 0 || length == 0) return kErrorInvalidArgument;
  std::strncpy(name, names[index], length - 1);
  name[length - 1] = '\0';
  return kSuccess;
}

int nvmlDeviceGetPowerUsage(void* device, unsigned int* milliwatts) {
  const int index = Index(device);
  if (index < 0) return kErrorInvalidArgument;
  if (index == 1) return kErrorNotSupported;
  *milliwatts = 123456;
  return kSuccess;
}

int nvmlDeviceGetUtilizationRates(void* device, Utilization* utilization) {
  const int index = Index(device);
  if (index < 0) return kErrorInvalidArgument;
  utilization->gpu = index == 0 ? 42 : 7;
  utilization->memory = 5;
  return kSuccess;
}

int nvmlDeviceGetMemoryInfo(void* device, Memory* memory) {
  const int index = Index(device);
  if (index < 0) return kErrorInvalidArgument;
  if (index == 1) return kErrorUnknown;
  memory->total = 80 * kGiB;
  memory->used = kGiB;
  memory->free = memory->total - memory->used;
  return kSuccess;
}

int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  if (open_sessions == 0) return kErrorUninitialized;
  if (length == 0) return kErrorInvalidArgument;
  std::strncpy(version, "580.159.04", length - 1);
  version[length - 1] = '\0';
  return kSuccess;
}

int nvmlSystemGetCudaDriverVersion(int* version) {
  if (open_sessions == 0) return kErrorUninitialized;
  *version = 13000;  // CUDA 13.0, as NVML encodes it (major x 1000 + minor x 10)
  return kSuccess;
}

const char* nvmlErrorString(int result) {
  switch (result) {
    case kSuccess:
      return "Success";
    case kErrorUninitialized:
      return "Uninitialized";
    case kErrorInvalidArgument:
      return "Invalid Argument";
    case kErrorNotSupported:
      return "Not Supported";
    case kErrorDriverNotLoaded:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}

}  // extern "C"
