// The GPU checks (agent/preflight/gpu_checks.h) with NVML, amd-smi and the environment faked.
#include "agent/preflight/gpu_checks.h"

#include <catch2/catch.hpp>

#include "tests/fakes/fake_preflight_probes.h"
#include "tests/unit/agent/preflight/preflight_test_profiles.h"

namespace kvbench::testing {
namespace {

using agent::preflight::CheckAmd;
using agent::preflight::CheckNvidia;
using agent::preflight::CheckVisibleDevices;
using agent::preflight::NvidiaGpus;
using agent::preflight::ReadGpus;
using Catch::Contains;

NvidiaGpus H200s(int count) {
  NvidiaGpus nvml;
  nvml.available = true;
  nvml.driver_version = "580.159.04";
  nvml.cuda_version = "13.0";
  for (int i = 0; i < count; ++i) {
    telemetry::GpuReading gpu;
    gpu.index = i;
    gpu.name = "NVIDIA H200";
    gpu.memory_total_bytes = int64_t{143771} << 20;
    nvml.gpus.push_back(gpu);
  }
  return nvml;
}

v1::GpuInfo Gpu(int index, v1::Vendor vendor, std::string name = "") {
  v1::GpuInfo gpu;
  gpu.set_index(index);
  gpu.set_vendor(vendor);
  gpu.set_name(std::move(name));
  return gpu;
}

TEST_CASE("gpu: no NVML library is a SKIP that says there is no NVIDIA GPU") {
  FakePreflightProbes probes;
  const auto profiles = ShippedProfiles();
  const auto gpus = ReadGpus(probes, {});
  const v1::PreflightCheck nvidia = CheckNvidia(gpus, profiles);
  CHECK(nvidia.status() == v1::PREFLIGHT_SKIP);
  CHECK_THAT(nvidia.detail(),
             Contains("no NVIDIA GPU: NVML not loadable") && Contains("libnvidia-ml.so.1"));
  CHECK(CheckAmd(gpus, profiles).status() == v1::PREFLIGHT_SKIP);
  CHECK(CheckVisibleDevices(gpus, profiles, probes).status() == v1::PREFLIGHT_SKIP);
}

TEST_CASE("gpu: NVML's GPUs, driver and CUDA version are named") {
  FakePreflightProbes probes;
  probes.SetNvidia(H200s(1));
  const v1::PreflightCheck nvidia = CheckNvidia(ReadGpus(probes, {}), ShippedProfiles());
  CHECK(nvidia.status() == v1::PREFLIGHT_OK);
  CHECK(nvidia.detail() ==
        "1 GPU: 1x NVIDIA H200 (143771 MiB); driver 580.159.04, CUDA 13.0 (NVML)");
}

TEST_CASE("gpu: NVML that loads but does not initialise fails the NVIDIA engine profiles") {
  FakePreflightProbes probes;
  NvidiaGpus broken;
  broken.reason = "nvmlInit_v2 failed: Driver Not Loaded (9)";
  probes.SetNvidia(broken);
  const v1::PreflightCheck nvidia = CheckNvidia(ReadGpus(probes, {}), ShippedProfiles());
  CHECK(nvidia.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(nvidia.detail(), Contains("Driver Not Loaded"));
  CHECK(Profiles(nvidia) == std::vector<std::string>{"vllm-nvidia"});
  CHECK(nvidia.tiers().empty());
  // With no NVIDIA engine profile there is nothing to keep off: a warning.
  CHECK(CheckNvidia(ReadGpus(probes, {}), SomeProfiles({"sim-vllm"})).status() ==
        v1::PREFLIGHT_WARN);
}

TEST_CASE("gpu: a configured index NVML does not have fails") {
  FakePreflightProbes probes;
  probes.SetNvidia(H200s(2));
  const v1::PreflightCheck nvidia =
      CheckNvidia(ReadGpus(probes, {Gpu(0, v1::NVIDIA), Gpu(3, v1::NVIDIA)}), ShippedProfiles());
  CHECK(nvidia.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(nvidia.detail(), Contains("index 3"));
}

TEST_CASE("gpu: NVIDIA GPUs found but none offered (only an AMD GPU configured) warns") {
  FakePreflightProbes probes;
  probes.SetNvidia(H200s(2));
  const v1::PreflightCheck nvidia =
      CheckNvidia(ReadGpus(probes, {Gpu(0, v1::AMD)}), ShippedProfiles());
  CHECK(nvidia.status() == v1::PREFLIGHT_WARN);
  CHECK_THAT(nvidia.remedy(), Contains("--gpus"));
}

TEST_CASE("gpu: CUDA_VISIBLE_DEVICES that does not cover the offered GPUs is inconsistent") {
  FakePreflightProbes probes;
  probes.SetNvidia(H200s(4));
  probes.SetEnv("CUDA_VISIBLE_DEVICES", "2,3");
  const auto profiles = ShippedProfiles();
  v1::PreflightCheck visible = CheckVisibleDevices(
      ReadGpus(probes, {Gpu(0, v1::NVIDIA), Gpu(1, v1::NVIDIA)}), profiles, probes);
  CHECK(visible.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(visible.detail(), Contains("CUDA_VISIBLE_DEVICES=\"2,3\"") &&
                                   Contains("offers GPUs 0,1") && Contains("GPU 0,1 outside"));
  CHECK(Profiles(visible) == std::vector<std::string>{"vllm-nvidia"});
  // Covering them is fine: the operator's set includes every GPU the agent hands out.
  visible = CheckVisibleDevices(ReadGpus(probes, {Gpu(2, v1::NVIDIA), Gpu(3, v1::NVIDIA)}),
                                profiles, probes);
  CHECK(visible.status() == v1::PREFLIGHT_OK);
  // UUIDs cannot be compared with indices.
  probes.SetEnv("CUDA_VISIBLE_DEVICES", "GPU-8c1e2f3a");
  CHECK(CheckVisibleDevices(ReadGpus(probes, {}), profiles, probes).status() == v1::PREFLIGHT_WARN);
}

TEST_CASE("gpu: GPUs of different models need CUDA_DEVICE_ORDER=PCI_BUS_ID") {
  FakePreflightProbes probes;
  const auto profiles = ShippedProfiles();
  const std::vector<v1::GpuInfo> mixed = {Gpu(0, v1::NVIDIA, "NVIDIA H200"),
                                          Gpu(1, v1::NVIDIA, "NVIDIA A100")};
  v1::PreflightCheck visible = CheckVisibleDevices(ReadGpus(probes, mixed), profiles, probes);
  CHECK(visible.status() == v1::PREFLIGHT_WARN);
  CHECK_THAT(visible.remedy(), Contains("CUDA_DEVICE_ORDER=PCI_BUS_ID"));
  probes.SetEnv("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
  CHECK(CheckVisibleDevices(ReadGpus(probes, mixed), profiles, probes).status() ==
        v1::PREFLIGHT_OK);
}

TEST_CASE("gpu: ROCR_VISIBLE_DEVICES renumbers AMD GPUs under the replicas") {
  FakePreflightProbes probes;
  probes.SetEnv("ROCR_VISIBLE_DEVICES", "1");
  const v1::PreflightCheck visible = CheckVisibleDevices(
      ReadGpus(probes, {Gpu(0, v1::AMD), Gpu(1, v1::AMD)}), ShippedProfiles(), probes);
  CHECK(visible.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(visible.detail(), Contains("ROCR_VISIBLE_DEVICES=1"));
  CHECK(Profiles(visible) == std::vector<std::string>{"vllm-amd"});
}

TEST_CASE("gpu: a VLLM profile pinning with the other vendor's variable fails that profile") {
  v1::Profile wrong = **ShippedProfiles().Find("vllm-amd");
  wrong.set_visible_devices_env("CUDA_VISIBLE_DEVICES");
  absl::StatusOr<agent::tiers::ProfileSet> profiles =
      agent::tiers::ProfileSet::FromProfiles({wrong});
  if (!profiles.ok()) {
    // The profile validator refuses it first: nothing reaches the preflight.
    SUCCEED(profiles.status().message());
    return;
  }
  FakePreflightProbes probes;
  const v1::PreflightCheck visible = CheckVisibleDevices(ReadGpus(probes, {}), *profiles, probes);
  CHECK(visible.status() == v1::PREFLIGHT_FAIL);
  CHECK(Profiles(visible) == std::vector<std::string>{"vllm-amd"});
}

TEST_CASE("gpu: AMD GPUs amd-smi finds but the config does not offer warn") {
  FakePreflightProbes probes;
  telemetry::GpuReading mi300;
  mi300.index = 0;
  mi300.name = "AMD Instinct MI300X";
  probes.SetAmd(std::vector<telemetry::GpuReading>{mi300});
  const auto profiles = ShippedProfiles();
  v1::PreflightCheck amd = CheckAmd(ReadGpus(probes, {}), profiles);
  CHECK(amd.status() == v1::PREFLIGHT_WARN);
  CHECK_THAT(amd.detail(), Contains("MI300X") && Contains("none offered"));
  amd = CheckAmd(ReadGpus(probes, {Gpu(0, v1::AMD)}), profiles);
  CHECK(amd.status() == v1::PREFLIGHT_OK);
}

}  // namespace
}  // namespace kvbench::testing
