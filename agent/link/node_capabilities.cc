#include "agent/link/node_capabilities.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "agent/scenario/free_space.h"
#include "agent/telemetry/nvml_gpu_telemetry.h"
#include "common/log/logging.h"
#include "common/version/version.h"

namespace kvbench::agent {
namespace {

std::string Hostname() {
  char name[256] = {};
  return ::gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : "";
}

int64_t MemTotalBytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    int64_t kib = 0;
    if (fields >> key >> kib && key == "MemTotal:") return kib * 1024;
  }
  return 0;
}

void DiscoverGpus(v1::AgentCapabilities* capabilities) {
  std::string reason;
  std::unique_ptr<telemetry::NvmlGpuTelemetry> nvml = telemetry::NvmlGpuTelemetry::Open(&reason);
  if (nvml == nullptr) {
    KV_LOG(INFO) << "no GPUs discovered (configure `gpus` to offer some) reason=" << reason;
    return;
  }
  for (const telemetry::GpuReading& reading : nvml->Read()) {
    v1::GpuInfo* gpu = capabilities->add_gpus();
    gpu->set_index(reading.index);
    gpu->set_vendor(v1::NVIDIA);
    gpu->set_name(reading.name);
    if (reading.memory_total_bytes) gpu->set_memory_bytes(*reading.memory_total_bytes);
  }
  KV_LOG(INFO) << "GPUs discovered through NVML count=" << capabilities->gpus_size();
}

}  // namespace

v1::AgentCapabilities DiscoverCapabilities(const v1::AgentConfig& config,
                                           const tiers::ProfileSet& profiles) {
  v1::AgentCapabilities capabilities;
  capabilities.set_agent_id(config.agent_id());
  capabilities.set_hostname(Hostname());
  capabilities.set_version(kVersion);
  if (config.gpus_size() > 0) {
    *capabilities.mutable_gpus() = config.gpus();
  } else {
    DiscoverGpus(&capabilities);
  }
  capabilities.set_cpu_memory_bytes(MemTotalBytes());
  capabilities.set_cpu_cores(static_cast<int32_t>(std::thread::hardware_concurrency()));
  if (!config.nvme_cache_dir().empty()) {
    capabilities.set_nvme_cache_path(config.nvme_cache_dir());
    if (std::optional<int64_t> free = FreeBytesUnder(config.nvme_cache_dir())) {
      capabilities.set_nvme_free_bytes(*free);
    } else {
      KV_LOG(WARNING) << "cannot read free space of nvme_cache_dir path="
                      << config.nvme_cache_dir();
    }
  }
  for (const std::string& name : profiles.names()) capabilities.add_profiles(name);
  *capabilities.mutable_labels() = config.labels();
  return capabilities;
}

}  // namespace kvbench::agent
