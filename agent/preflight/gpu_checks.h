#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "agent/preflight/preflight_probes.h"
#include "agent/telemetry/gpu_reading.h"
#include "agent/tiers/profile_set.h"
#include "kvbench/v1/agent.pb.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::agent::preflight {

// What the GPU checks read once: NVML's answer, amd-smi's, and the GPUs the agent offers (its
// config's, else NVML's).
struct GpuFindings {
  NvidiaGpus nvidia;
  absl::StatusOr<std::vector<telemetry::GpuReading>> amd = std::vector<telemetry::GpuReading>{};
  std::vector<v1::GpuInfo> offered;
};

// Reads NVML and amd-smi through `probes`; `configured` empty: the agent offers (and pins) what
// NVML finds.
GpuFindings ReadGpus(PreflightProbes& probes, const std::vector<v1::GpuInfo>& configured);

// gpu.nvidia: NVML's GPUs, driver and CUDA version; SKIP "no NVIDIA GPU: ..." without the
// library or a GPU; FAIL (for the NVIDIA engine profiles) when NVML loads but cannot be used, or
// the config offers an index NVML does not have; WARN when it finds GPUs but none is offered
// (the config lists only other vendors' GPUs) while an NVIDIA engine profile is loaded.
v1::PreflightCheck CheckNvidia(const GpuFindings& gpus, const tiers::ProfileSet& profiles);
// gpu.amd: amd-smi's GPUs; SKIP without the tool or a GPU; WARN when it finds GPUs the config
// does not offer (the agent discovers NVIDIA GPUs only).
v1::PreflightCheck CheckAmd(const GpuFindings& gpus, const tiers::ProfileSet& profiles);
// gpu.visible_devices: the agent sets each replica's CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES
// to its share of the offered GPUs (by index); a variable in the agent's own environment that
// does not cover them means the operator's restriction is not what the replicas get (FAIL), as
// does a VLLM profile naming the other vendor's variable; ROCR_VISIBLE_DEVICES renumbers HIP's
// indices (FAIL); CUDA's fastest-first order over GPUs of different models (WARN).
v1::PreflightCheck CheckVisibleDevices(const GpuFindings& gpus, const tiers::ProfileSet& profiles,
                                       PreflightProbes& probes);

}  // namespace kvbench::agent::preflight
