// NvmlGpuTelemetry: unavailable NVML is a nullptr and a reason, never a crash; the whole dlopen
// path against a fake libnvidia-ml (fake_nvml_library.cc, KV_FAKE_NVML_PATH).

#include "agent/telemetry/nvml_gpu_telemetry.h"

#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

namespace kvbench::telemetry {
namespace {

// The fake library's controls, reached through a handle of our own on the same file.
class FakeNvmlControls {
 public:
  FakeNvmlControls() : library_(::dlopen(KV_FAKE_NVML_PATH, RTLD_NOW | RTLD_LOCAL)) {
    REQUIRE(library_ != nullptr);
  }
  ~FakeNvmlControls() {
    SetInitResult(0);
    ::dlclose(library_);
  }
  FakeNvmlControls(const FakeNvmlControls&) = delete;
  FakeNvmlControls& operator=(const FakeNvmlControls&) = delete;

  void SetInitResult(int result) { Get<void (*)(int)>("FakeNvmlSetInitResult")(result); }
  int init_calls() { return Get<int (*)()>("FakeNvmlInitCalls")(); }
  int shutdown_calls() { return Get<int (*)()>("FakeNvmlShutdownCalls")(); }

 private:
  template <typename Fn>
  Fn Get(const char* name) {
    void* symbol = ::dlsym(library_, name);
    REQUIRE(symbol != nullptr);
    return reinterpret_cast<Fn>(symbol);
  }

  void* const library_;
};

TEST_CASE("NVML on this machine: a GPU list, or nullptr and a reason, never a crash") {
  std::string reason;
  std::unique_ptr<NvmlGpuTelemetry> nvml = NvmlGpuTelemetry::Open(&reason);
  if (nvml == nullptr) {
    INFO("reason: " << reason);
    CHECK_FALSE(reason.empty());
    CHECK(NvmlGpuTelemetry::Open() == nullptr);  // no reason wanted: still fine
  } else {                                       // a machine with the NVIDIA driver
    CHECK(nvml->Read().size() == static_cast<size_t>(nvml->device_count()));
  }
}

TEST_CASE("a library that does not exist: the reason names it and dlerror's text") {
  std::string reason;
  CHECK(NvmlGpuTelemetry::Open("libkvbench-no-such-nvml.so.1", &reason) == nullptr);
  CHECK_THAT(reason, Catch::Contains("cannot load libkvbench-no-such-nvml.so.1") &&
                         Catch::Contains("No such file"));
}

TEST_CASE("a library without the NVML symbols: the reason names the first missing one") {
  std::string reason;
  CHECK(NvmlGpuTelemetry::Open("libc.so.6", &reason) == nullptr);
  CHECK(reason == "libc.so.6 is not a usable NVML: it lacks nvmlInit_v2");
}

TEST_CASE("nvmlInit_v2 failing (no driver loaded): nullptr, the NVML error text, no shutdown") {
  FakeNvmlControls fake;
  fake.SetInitResult(9);
  const int shutdowns = fake.shutdown_calls();
  std::string reason;
  CHECK(NvmlGpuTelemetry::Open(KV_FAKE_NVML_PATH, &reason) == nullptr);
  CHECK(reason == "nvmlInit_v2 failed: Driver Not Loaded (9)");
  CHECK(fake.shutdown_calls() == shutdowns);
}

TEST_CASE("the fake NVML: every field read, failed calls leave nullopt and say why") {
  FakeNvmlControls fake;
  const int inits = fake.init_calls();
  const int shutdowns = fake.shutdown_calls();
  std::string reason;
  std::unique_ptr<NvmlGpuTelemetry> nvml = NvmlGpuTelemetry::Open(KV_FAKE_NVML_PATH, &reason);
  REQUIRE(nvml != nullptr);
  CHECK(reason.empty());
  CHECK(fake.init_calls() == inits + 1);
  REQUIRE(nvml->device_count() == 2);
  // The preflight's "driver and CUDA version": nvmlSystemGetDriverVersion and
  // nvmlSystemGetCudaDriverVersion, 13000 read as "13.0".
  CHECK(nvml->driver_version() == "580.159.04");
  CHECK(nvml->cuda_driver_version() == "13.0");

  const std::vector<GpuReading> readings = nvml->Read();
  REQUIRE(readings.size() == 2);
  const GpuReading& a100 = readings[0];
  CHECK(a100.index == 0);
  CHECK(a100.name == "Fake GPU A100");
  CHECK(a100.power_w.value_or(-1) == Approx(123.456));
  CHECK(a100.utilization_pct == 42.0);
  CHECK(a100.memory_used_bytes == int64_t{1} << 30);
  CHECK(a100.memory_total_bytes == int64_t{80} << 30);
  CHECK(a100.errors.empty());

  const GpuReading& t4 = readings[1];
  CHECK(t4.index == 1);
  CHECK(t4.name == "Fake GPU T4");
  CHECK_FALSE(t4.power_w.has_value());
  CHECK(t4.utilization_pct == 7.0);
  CHECK_FALSE(t4.memory_used_bytes.has_value());
  CHECK_FALSE(t4.memory_total_bytes.has_value());
  CHECK(t4.errors ==
        std::vector<std::string>{"power: Not Supported (3)", "memory: Unknown Error (999)"});

  CHECK(nvml->Read().size() == 2);  // reads again
  nvml.reset();
  CHECK(fake.shutdown_calls() == shutdowns + 1);
}

}  // namespace
}  // namespace kvbench::telemetry
