#include "controller/kvctl/local_capabilities.h"

#include <algorithm>
#include <string>

#include "controller/scheduler/scheduler.h"

namespace kvbench::kvctl {
namespace {

void AddProfile(const std::string& name, v1::AgentCapabilities* agent) {
  if (name.empty()) return;
  if (std::find(agent->profiles().begin(), agent->profiles().end(), name) ==
      agent->profiles().end()) {
    agent->add_profiles(name);
  }
}

void AddGpus(int32_t needed, v1::Vendor vendor, v1::AgentCapabilities* agent) {
  const int32_t has = static_cast<int32_t>(
      std::count_if(agent->gpus().begin(), agent->gpus().end(),
                    [vendor](const v1::GpuInfo& gpu) { return gpu.vendor() == vendor; }));
  int32_t next_index = agent->gpus_size();
  for (int32_t i = has; i < needed; ++i) {
    v1::GpuInfo* gpu = agent->add_gpus();
    gpu->set_index(next_index++);
    gpu->set_vendor(vendor);
  }
}

}  // namespace

v1::AgentCapabilities LocalCapabilities(v1::AgentCapabilities discovered, const v1::JobSpec& spec,
                                        const std::vector<v1::Scenario>& scenarios) {
  v1::AgentCapabilities agent = std::move(discovered);
  for (const v1::Scenario& scenario : scenarios) {
    const controller::ScenarioRequirements req = controller::RequirementsOf(spec, scenario);
    AddProfile(req.engine_profile, &agent);
    if (req.cache_profile) AddProfile(*req.cache_profile, &agent);
    if (req.gpus > 0) AddGpus(req.gpus, req.vendor, &agent);
    agent.set_cpu_memory_bytes(std::max(agent.cpu_memory_bytes(), req.cpu_memory_bytes));
    if (req.nvme_path && agent.nvme_cache_path().empty()) agent.set_nvme_cache_path("local");
    agent.set_nvme_free_bytes(std::max(agent.nvme_free_bytes(), req.nvme_free_bytes));
  }
  return agent;
}

}  // namespace kvbench::kvctl
