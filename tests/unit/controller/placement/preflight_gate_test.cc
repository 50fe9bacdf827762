// The scheduler places no scenario of a tier on an agent whose latest preflight FAILs
// for it (controller/placement/agent_preflight.h), and says which check when nothing can take it;
// a heartbeat's checks update what the registration said.
#include <catch2/catch.hpp>
#include <deque>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/preflight/preflight_rules.h"
#include "controller/placement/agent_preflight.h"
#include "controller/placement/placement.h"

namespace kvbench::controller {
// A namespace of its own: the unity build compiles this file with placement_test.cc.
namespace preflight_gate_test {
namespace {

using Catch::Contains;

constexpr int64_t kGib = 1024LL * 1024 * 1024;

v1::PreflightCheck Check(const std::string& name, v1::PreflightStatus status,
                         std::vector<v1::Tier> tiers = {}, std::vector<std::string> profiles = {},
                         const std::string& detail = "") {
  v1::PreflightCheck check;
  check.set_name(name);
  check.set_status(status);
  check.set_detail(detail.empty() ? name + " detail" : detail);
  for (v1::Tier tier : tiers) check.add_tiers(tier);
  for (const std::string& profile : profiles) check.add_profiles(profile);
  return check;
}

// A full agent (GPUs, every profile, an NVMe dir with room) with these preflight checks.
v1::AgentView Agent(const std::string& id, std::vector<v1::PreflightCheck> preflight = {}) {
  v1::AgentView view;
  v1::AgentCapabilities* caps = view.mutable_capabilities();
  caps->set_agent_id(id);
  for (int i = 0; i < 8; ++i) {
    v1::GpuInfo* gpu = caps->add_gpus();
    gpu->set_index(i);
    gpu->set_vendor(v1::NVIDIA);
  }
  caps->set_cpu_memory_bytes(512 * kGib);
  caps->set_nvme_cache_path("/nvme/kv");
  caps->set_nvme_free_bytes(2048 * kGib);
  for (const char* profile :
       {"sim-vllm", "sim-lmcache", "vllm-nvidia", "vllm-amd", "lmcache-cpu", "lmcache-nvme"}) {
    caps->add_profiles(profile);
  }
  for (v1::PreflightCheck& check : preflight) *caps->add_preflight() = std::move(check);
  view.set_state(v1::AGENT_STATE_CONNECTED);
  return view;
}

v1::JobSpec Spec(v1::Engine engine) {
  v1::JobSpec spec;
  spec.set_engine(engine);
  spec.set_build(engine == v1::VLLM ? v1::NVIDIA : v1::VENDOR_UNSPECIFIED);
  spec.set_replicas(1);
  spec.set_tensor_parallel_size(1);
  spec.set_cpu_pool_gb(8);
  spec.set_nvme_pool_gb(64);
  return spec;
}

class Queue {
 public:
  Queue& Add(const v1::JobSpec& spec, v1::Tier tier) {
    specs_.push_back(spec);
    QueuedScenario queued;
    queued.job_id = "j";
    queued.scenario.set_job_id("j");
    queued.scenario.set_index(static_cast<int32_t>(scenarios_.size()));
    queued.scenario.set_tier(tier);
    queued.scenario.set_scenario_id(absl::StrCat(v1::Tier_Name(tier), "-", scenarios_.size()));
    queued.spec = &specs_.back();
    scenarios_.push_back(std::move(queued));
    return *this;
  }
  const std::vector<QueuedScenario>& scenarios() const { return scenarios_; }

 private:
  std::deque<v1::JobSpec> specs_;
  std::vector<QueuedScenario> scenarios_;
};

std::vector<std::string> Placed(const PlacementRound& result) {
  std::vector<std::string> out;
  for (const Placement& p : result.placements) out.push_back(p.scenario_id + "->" + p.agent_id);
  return out;
}

TEST_CASE("Preflight: a FAIL for NVME keeps NVME scenarios off that agent, not GPU ones") {
  const v1::AgentView tmpfs =
      Agent("tmpfs-node", {Check("nvme.block_device", v1::PREFLIGHT_FAIL, {v1::NVME}, {},
                                 "nvme_cache_dir /nvme/kv is on tmpfs (RAM)")});
  for (v1::Engine engine : {v1::VLLM, v1::SIM}) {
    Queue queue;
    queue.Add(Spec(engine), v1::GPU).Add(Spec(engine), v1::CPU_RAM).Add(Spec(engine), v1::NVME);
    // One agent: GPU and CPU_RAM placed one at a time; NVME can never run there.
    PlacementRound result = Place(queue.scenarios(), {tmpfs});
    CHECK(Placed(result) == std::vector<std::string>{"GPU-0->tmpfs-node"});
    REQUIRE(result.unplaceable.size() == 1);
    CHECK(result.unplaceable[0].scenario_id == "NVME-2");
    CHECK_THAT(result.unplaceable[0].reason,
               Contains("needs a preflight that passes for NVME") &&
                   Contains("tmpfs-node: nvme.block_device FAILs: nvme_cache_dir /nvme/kv is on "
                            "tmpfs (RAM)"));
    // A second agent whose preflight passes takes the NVME scenario.
    result = Place(queue.scenarios(), {tmpfs, Agent("good-node")});
    CHECK(Placed(result) == std::vector<std::string>{"GPU-0->good-node", "CPU_RAM-1->tmpfs-node"});
    CHECK(result.unplaceable.empty());  // NVME waits for good-node
    Queue nvme;
    nvme.Add(Spec(engine), v1::NVME);
    CHECK(Placed(Place(nvme.scenarios(), {tmpfs, Agent("good-node")})) ==
          std::vector<std::string>{"NVME-0->good-node"});
  }
}

TEST_CASE("Preflight: a FAIL naming profiles keeps off only scenarios that run them") {
  // No vLLM on this node: its real-engine scenarios cannot run, its simulated ones can.
  const v1::AgentView no_vllm = Agent(
      "laptop", {Check("binary.vllm-nvidia", v1::PREFLIGHT_FAIL, {}, {"vllm-nvidia"}),
                 Check("binary.lmcache-nvme", v1::PREFLIGHT_FAIL, {v1::NVME}, {"lmcache-nvme"})});
  Queue sim;
  sim.Add(Spec(v1::SIM), v1::NVME);
  CHECK(Placed(Place(sim.scenarios(), {no_vllm})) == std::vector<std::string>{"NVME-0->laptop"});
  Queue real;
  real.Add(Spec(v1::VLLM), v1::GPU);
  PlacementRound result = Place(real.scenarios(), {no_vllm});
  CHECK(result.placements.empty());
  REQUIRE(result.unplaceable.size() == 1);
  CHECK_THAT(result.unplaceable[0].reason, Contains("binary.vllm-nvidia FAILs"));
  CHECK_THAT(result.unplaceable[0].reason, !Contains("binary.lmcache-nvme"));
}

TEST_CASE("Preflight: a FAIL naming no tier keeps everything off, WARN and SKIP keep nothing") {
  const v1::AgentView broken = Agent("broken", {Check("ports", v1::PREFLIGHT_FAIL)});
  const v1::AgentView warned =
      Agent("warned", {Check("nvme.page_cache", v1::PREFLIGHT_WARN, {v1::NVME}),
                       Check("gpu.amd", v1::PREFLIGHT_SKIP)});
  for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) {
    Queue queue;
    queue.Add(Spec(v1::SIM), tier);
    CHECK(Place(queue.scenarios(), {broken}).placements.empty());
    CHECK(Placed(Place(queue.scenarios(), {warned})).size() == 1);
  }
}

TEST_CASE("PreflightKeepsOff: tiers and profiles") {
  const auto nvme_fail = Check("nvme.dir", v1::PREFLIGHT_FAIL, {v1::NVME});
  CHECK(PreflightKeepsOff(nvme_fail, v1::NVME, "sim-vllm", std::string("sim-lmcache")));
  CHECK_FALSE(PreflightKeepsOff(nvme_fail, v1::CPU_RAM, "sim-vllm", std::string("sim-lmcache")));
  const auto cache =
      Check("binary.lmcache-cpu", v1::PREFLIGHT_FAIL, {v1::CPU_RAM}, {"lmcache-cpu"});
  CHECK(PreflightKeepsOff(cache, v1::CPU_RAM, "vllm-nvidia", std::string("lmcache-cpu")));
  CHECK_FALSE(PreflightKeepsOff(cache, v1::CPU_RAM, "sim-vllm", std::string("sim-lmcache")));
  CHECK_FALSE(PreflightKeepsOff(cache, v1::GPU, "vllm-nvidia", std::nullopt));
  CHECK_FALSE(PreflightKeepsOff(Check("x", v1::PREFLIGHT_WARN), v1::GPU, "sim-vllm", std::nullopt));
}

TEST_CASE("ApplyHeartbeatPreflight: the heartbeat's failures replace the registration's") {
  v1::AgentCapabilities caps =
      Agent("n",
            {Check("nvme.block_device", v1::PREFLIGHT_OK), Check("datasets", v1::PREFLIGHT_WARN),
             Check("binary.vllm-nvidia", v1::PREFLIGHT_FAIL, {}, {"vllm-nvidia"})})
          .capabilities();
  google::protobuf::RepeatedPtrField<v1::PreflightCheck> heartbeat;
  *heartbeat.Add() = Check("binary.vllm-nvidia", v1::PREFLIGHT_FAIL, {}, {"vllm-nvidia"});
  *heartbeat.Add() = Check("datasets", v1::PREFLIGHT_WARN);
  CHECK_FALSE(ApplyHeartbeatPreflight(heartbeat, &caps));  // the same: nothing changed

  // The NVMe dir turned out to be tmpfs, the datasets arrived.
  heartbeat.Clear();
  *heartbeat.Add() = Check("binary.vllm-nvidia", v1::PREFLIGHT_FAIL, {}, {"vllm-nvidia"});
  *heartbeat.Add() = Check("nvme.block_device", v1::PREFLIGHT_FAIL, {v1::NVME});
  CHECK(ApplyHeartbeatPreflight(heartbeat, &caps));
  REQUIRE(caps.preflight_size() == 3);
  CHECK(caps.preflight(0).name() == "nvme.block_device");
  CHECK(caps.preflight(0).status() == v1::PREFLIGHT_FAIL);
  CHECK(caps.preflight(1).name() == "datasets");
  CHECK(caps.preflight(1).status() == v1::PREFLIGHT_OK);
  CHECK(caps.preflight(1).detail() == "passes now (re-checked while idle)");
  CHECK(caps.preflight(2).status() == v1::PREFLIGHT_FAIL);

  // A check the registration did not carry is added.
  *heartbeat.Add() = Check("ports", v1::PREFLIGHT_FAIL);
  CHECK(ApplyHeartbeatPreflight(heartbeat, &caps));
  CHECK(caps.preflight_size() == 4);
  CHECK(caps.preflight(3).name() == "ports");
}

}  // namespace
}  // namespace preflight_gate_test
}  // namespace kvbench::controller
