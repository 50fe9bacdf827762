#include "controller/placement/placement.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kvbench::controller {
namespace {

constexpr int64_t kGib = 1024LL * 1024 * 1024;

// Every profile kvbench ships, as a full agent loads them.
const std::vector<std::string> kAllProfiles = {"sim-vllm", "sim-lmcache", "vllm-nvidia",
                                               "vllm-amd", "lmcache-cpu", "lmcache-nvme"};

// An agent as a test describes it: a full agent (every profile, plenty of memory, an NVMe dir
// with room), connected and idle, unless told otherwise.
class AgentSpec {
 public:
  explicit AgentSpec(std::string id) : id_(std::move(id)) {}
  AgentSpec& Gpus(int n) {
    gpus_ = n;
    return *this;
  }
  AgentSpec& Vendor(v1::Vendor vendor) {
    vendor_ = vendor;
    return *this;
  }
  AgentSpec& CpuGib(int64_t gib) {
    cpu_gib_ = gib;
    return *this;
  }
  AgentSpec& NvmePath(std::string path) {
    nvme_path_ = std::move(path);
    return *this;
  }
  AgentSpec& NvmeFreeGib(int64_t gib) {
    nvme_free_gib_ = gib;
    return *this;
  }
  AgentSpec& Profiles(std::vector<std::string> names) {
    profiles_ = std::move(names);
    return *this;
  }
  AgentSpec& Busy() {
    busy_ = true;
    return *this;
  }
  AgentSpec& Disconnected() {
    connected_ = false;
    return *this;
  }

  v1::AgentView View() const;

 private:
  std::string id_;
  int gpus_ = 0;
  v1::Vendor vendor_ = v1::NVIDIA;
  int64_t cpu_gib_ = 256;
  std::string nvme_path_ = "/nvme/kv";
  int64_t nvme_free_gib_ = 1024;
  std::vector<std::string> profiles_ = kAllProfiles;
  bool busy_ = false;
  bool connected_ = true;
};

AgentSpec A(std::string id) { return AgentSpec(std::move(id)); }

v1::AgentView AgentSpec::View() const {
  v1::AgentView view;
  v1::AgentCapabilities* caps = view.mutable_capabilities();
  caps->set_agent_id(id_);
  for (int i = 0; i < gpus_; ++i) {
    v1::GpuInfo* gpu = caps->add_gpus();
    gpu->set_index(i);
    gpu->set_vendor(vendor_);
    gpu->set_memory_bytes(141 * kGib);
  }
  caps->set_cpu_memory_bytes(cpu_gib_ * kGib);
  caps->set_nvme_cache_path(nvme_path_);
  caps->set_nvme_free_bytes(nvme_path_.empty() ? 0 : nvme_free_gib_ * kGib);
  for (const std::string& profile : profiles_) caps->add_profiles(profile);
  view.set_state(connected_ ? v1::AGENT_STATE_CONNECTED : v1::AGENT_STATE_DISCONNECTED);
  if (busy_) view.set_running_scenario_id("other-job/00-gpu-c1");
  return view;
}

// An effective spec (defaults applied) of a real vLLM job.
v1::JobSpec Vllm(v1::Vendor build = v1::NVIDIA, int replicas = 1, int tp = 1) {
  v1::JobSpec spec;
  spec.set_engine(v1::VLLM);
  spec.set_build(build);
  spec.set_replicas(replicas);
  spec.set_tensor_parallel_size(tp);
  spec.set_cpu_pool_gb(8);
  spec.set_nvme_pool_gb(64);
  return spec;
}

v1::JobSpec Sim(int replicas = 1) {
  v1::JobSpec spec = Vllm(v1::VENDOR_UNSPECIFIED, replicas, 1);
  spec.set_engine(v1::SIM);
  return spec;
}

// Builds the queue; owns the specs so their pointers stay valid.
class Queue {
 public:
  // Adds one scenario of `job_id`; the spec is copied once per call.
  Queue& Add(const std::string& job_id, const v1::JobSpec& spec, v1::Tier tier, int index,
             int32_t priority = 0, int64_t submit_seq = 0) {
    specs_.push_back(spec);
    QueuedScenario queued;
    queued.job_id = job_id;
    queued.scenario.set_job_id(job_id);
    queued.scenario.set_index(index);
    queued.scenario.set_tier(tier);
    queued.scenario.set_scenario_id(absl::StrCat(job_id, "/", index));
    queued.spec = &specs_.back();
    queued.priority = priority;
    queued.submit_seq = submit_seq;
    scenarios_.push_back(std::move(queued));
    return *this;
  }
  const std::vector<QueuedScenario>& scenarios() const { return scenarios_; }

 private:
  std::deque<v1::JobSpec> specs_;  // stable addresses
  std::vector<QueuedScenario> scenarios_;
};

// "scenario_id->agent_id" per placement, in order.
std::vector<std::string> Placed(const PlacementRound& result) {
  std::vector<std::string> out;
  for (const Placement& p : result.placements) out.push_back(p.scenario_id + "->" + p.agent_id);
  return out;
}

PlacementRound Run(const Queue& queue, const std::vector<AgentSpec>& agents) {
  std::vector<v1::AgentView> views;
  for (const AgentSpec& agent : agents) views.push_back(agent.View());
  return Place(queue.scenarios(), views);
}

TEST_CASE("Schedule: a sweep spreads over agents by capability") {
  // One job, three tiers; only one agent has an NVMe path, only one has the NVMe profile too.
  Queue queue;
  queue.Add("j", Vllm(), v1::GPU, 0).Add("j", Vllm(), v1::CPU_RAM, 1).Add("j", Vllm(), v1::NVME, 2);
  PlacementRound result =
      Run(queue, {A("a").Gpus(1).NvmePath(""), A("b").Gpus(1).NvmePath(""), A("c").Gpus(1)});
  CHECK(Placed(result) == std::vector<std::string>{"j/0->a", "j/1->b", "j/2->c"});
  CHECK(result.unplaceable.empty());
}

TEST_CASE("Schedule: the NVME scenario goes to the NVMe agent even when it comes first") {
  Queue queue;
  queue.Add("j", Vllm(), v1::NVME, 0).Add("j", Vllm(), v1::GPU, 1);
  PlacementRound result = Run(queue, {A("a").Gpus(1).NvmePath(""), A("z").Gpus(1)});
  CHECK(Placed(result) == std::vector<std::string>{"j/0->z", "j/1->a"});
}

TEST_CASE("Schedule: agents without an NVMe path are used first, keeping NVMe ones for NVME") {
  // GPU and CPU_RAM come first in the queue; the NVMe agent sorts between the other two by id.
  Queue queue;
  queue.Add("j", Vllm(), v1::GPU, 0).Add("j", Vllm(), v1::CPU_RAM, 1).Add("j", Vllm(), v1::NVME, 2);
  PlacementRound result =
      Run(queue, {A("a").Gpus(1).NvmePath(""), A("b").Gpus(1), A("c").Gpus(1).NvmePath("")});
  CHECK(Placed(result) == std::vector<std::string>{"j/0->a", "j/1->c", "j/2->b"});
  // GPU count still decides first: a smaller NVMe agent is a better fit than a bigger plain one.
  Queue one;
  one.Add("k", Vllm(), v1::GPU, 0);
  CHECK(Placed(Run(one, {A("big").Gpus(8).NvmePath(""), A("small").Gpus(1)})) ==
        std::vector<std::string>{"k/0->small"});
}

TEST_CASE("Schedule: higher priority first, then FIFO, then index within the job") {
  struct Row {
    const char* name;
    int32_t prio_x, prio_y;
    int64_t seq_x, seq_y;
    const char* winner;  // the job whose first scenario takes the one agent
  };
  const std::vector<Row> rows = {
      {"priority beats submission order", 0, 5, 1, 2, "y"},
      {"FIFO within a priority", 3, 3, 2, 1, "y"},
      {"FIFO, the other way", 3, 3, 1, 2, "x"},
      {"negative priority runs last", -1, 0, 1, 2, "y"},
  };
  for (const Row& row : rows) {
    SECTION(row.name) {
      Queue queue;
      // Indices out of order in the input: the scheduler orders by index within a job.
      queue.Add("x", Vllm(), v1::GPU, 1, row.prio_x, row.seq_x)
          .Add("x", Vllm(), v1::GPU, 0, row.prio_x, row.seq_x)
          .Add("y", Vllm(), v1::GPU, 1, row.prio_y, row.seq_y)
          .Add("y", Vllm(), v1::GPU, 0, row.prio_y, row.seq_y);
      PlacementRound result = Run(queue, {A("a").Gpus(1)});
      CHECK(Placed(result) == std::vector<std::string>{absl::StrCat(row.winner, "/0->a")});
      CHECK(result.unplaceable.empty());
    }
  }
}

TEST_CASE("Schedule: all four in order with enough agents") {
  Queue queue;
  queue.Add("late", Vllm(), v1::GPU, 0, 0, 9)
      .Add("early", Vllm(), v1::GPU, 1, 0, 1)
      .Add("urgent", Vllm(), v1::GPU, 0, 7, 20)
      .Add("early", Vllm(), v1::GPU, 0, 0, 1);
  PlacementRound result =
      Run(queue, {A("d").Gpus(1), A("c").Gpus(1), A("b").Gpus(1), A("a").Gpus(1)});
  CHECK(Placed(result) ==
        std::vector<std::string>{"urgent/0->a", "early/0->b", "early/1->c", "late/0->d"});
}

TEST_CASE("Schedule: best fit by GPU count, then agent_id, whatever the input order") {
  struct Row {
    const char* name;
    int replicas, tp;
    std::vector<AgentSpec> agents;
    const char* expected_agent;
  };
  const std::vector<Row> rows = {
      {"smallest sufficient agent",
       1,
       2,
       {A("a8").Gpus(8), A("b2").Gpus(2), A("c4").Gpus(4)},
       "b2"},
      {"too small agents skipped", 2, 2, {A("a8").Gpus(8), A("b2").Gpus(2), A("c4").Gpus(4)}, "c4"},
      {"equal GPU counts: smallest agent_id",
       1,
       1,
       {A("n3").Gpus(2), A("n1").Gpus(2), A("n2").Gpus(2)},
       "n1"},
  };
  for (const Row& row : rows) {
    SECTION(row.name) {
      Queue queue;
      queue.Add("j", Vllm(v1::NVIDIA, row.replicas, row.tp), v1::GPU, 0);
      std::vector<AgentSpec> agents = row.agents;
      for (int turn = 0; turn < 3; ++turn) {  // every rotation of the agents: same answer
        PlacementRound result = Run(queue, agents);
        REQUIRE(result.placements.size() == 1);
        CHECK(result.placements[0].agent_id == row.expected_agent);
        std::rotate(agents.begin(), agents.begin() + 1, agents.end());
      }
    }
  }
}

TEST_CASE("Schedule: vendor must match the job's build") {
  Queue queue;
  queue.Add("nv", Vllm(v1::NVIDIA), v1::GPU, 0).Add("amd", Vllm(v1::AMD), v1::GPU, 0, 0, 1);
  SECTION("each build to its vendor") {
    PlacementRound result =
        Run(queue, {A("a-amd").Gpus(8).Vendor(v1::AMD), A("b-nv").Gpus(8).Vendor(v1::NVIDIA)});
    CHECK(Placed(result) == std::vector<std::string>{"nv/0->b-nv", "amd/0->a-amd"});
  }
  SECTION("only AMD agents: the NVIDIA job is explained") {
    PlacementRound result = Run(queue, {A("a-amd").Gpus(8).Vendor(v1::AMD)});
    CHECK(Placed(result) == std::vector<std::string>{"amd/0->a-amd"});
    REQUIRE(result.unplaceable.size() == 1);
    CHECK(result.unplaceable[0].scenario_id == "nv/0");
    CHECK(result.unplaceable[0].reason ==
          "needs 1 NVIDIA GPU (1 replica x TP 1); the largest agent has 0");
  }
}

TEST_CASE("Schedule: NVME needs an NVMe path with room for the pool") {
  struct Row {
    const char* name;
    std::string nvme_path;
    int64_t free_gib;
    const char* reason;  // nullptr: placed
  };
  const std::vector<Row> rows = {
      {"path with room", "/nvme", 64, nullptr},
      {"no path", "", 0, "needs an NVMe cache path (tier NVME); no connected agent has one"},
      {"too small", "/nvme", 10,
       "needs 64 GiB free on NVMe (nvme_pool_gb); "
       "the most free on any agent with an NVMe path is 10 GiB"},
  };
  for (const Row& row : rows) {
    SECTION(row.name) {
      Queue queue;
      queue.Add("j", Vllm(), v1::NVME, 0);
      PlacementRound result =
          Run(queue, {A("a").Gpus(1).NvmePath(row.nvme_path).NvmeFreeGib(row.free_gib)});
      if (row.reason == nullptr) {
        CHECK(Placed(result) == std::vector<std::string>{"j/0->a"});
        CHECK(result.unplaceable.empty());
      } else {
        CHECK(result.placements.empty());
        REQUIRE(result.unplaceable.size() == 1);
        CHECK(result.unplaceable[0].reason == row.reason);
      }
    }
  }
}

TEST_CASE("Schedule: CPU_RAM needs CPU memory for the pool and the cache-server profile") {
  Queue queue;
  queue.Add("j", Vllm(), v1::CPU_RAM, 0);
  SECTION("too little memory") {
    PlacementRound result = Run(queue, {A("a").Gpus(1).CpuGib(4)});
    REQUIRE(result.unplaceable.size() == 1);
    CHECK(result.unplaceable[0].reason ==
          "needs 8 GiB of CPU memory (cpu_pool_gb); the largest agent has 4 GiB");
  }
  SECTION("profile missing") {
    PlacementRound result = Run(queue, {A("a").Gpus(1).Profiles({"vllm-nvidia", "lmcache-nvme"})});
    REQUIRE(result.unplaceable.size() == 1);
    CHECK(result.unplaceable[0].reason == "needs profile lmcache-cpu; no connected agent has it");
  }
}

TEST_CASE("Schedule: a simulated job needs no GPU, only the sim profiles") {
  Queue queue;
  queue.Add("s", Sim(4), v1::NVME, 0).Add("s", Sim(4), v1::CPU_RAM, 1);
  // A laptop: no GPU, little memory, a small disk; the simulators' pools hold no real bytes.
  PlacementRound result = Run(
      queue, {A("gpu-box").Gpus(8),
              A("laptop").Gpus(0).CpuGib(2).NvmeFreeGib(1).Profiles({"sim-vllm", "sim-lmcache"})});
  // Best fit keeps the GPU box for later: the first scenario takes the laptop.
  CHECK(Placed(result) == std::vector<std::string>{"s/0->laptop", "s/1->gpu-box"});
  SECTION("but the sim profiles must be there") {
    PlacementRound none = Run(queue, {A("gpu-only").Gpus(8).Profiles({"vllm-nvidia"})});
    REQUIRE(none.unplaceable.size() == 2);
    CHECK(none.unplaceable[0].reason ==
          "needs profile sim-vllm; no connected agent has it; "
          "needs profile sim-lmcache; no connected agent has it");
  }
}

TEST_CASE("Schedule: busy agents get nothing and a scenario that fits them waits") {
  Queue queue;
  queue.Add("j", Vllm(v1::NVIDIA, 1, 4), v1::GPU, 0).Add("j", Vllm(), v1::GPU, 1);
  PlacementRound result = Run(queue, {A("big").Gpus(4).Busy(), A("small").Gpus(1)});
  // j/0 fits only the busy agent: neither placed nor unplaceable. j/1 takes the idle one.
  CHECK(Placed(result) == std::vector<std::string>{"j/1->small"});
  CHECK(result.unplaceable.empty());
}

TEST_CASE("Schedule: never on a disconnected agent, nor judged by one") {
  Queue queue;
  queue.Add("j", Vllm(v1::NVIDIA, 1, 4), v1::GPU, 0);
  SECTION("the only big agent is disconnected: unplaceable among those connected") {
    PlacementRound result = Run(queue, {A("big").Gpus(4).Disconnected(), A("small").Gpus(1)});
    CHECK(result.placements.empty());
    REQUIRE(result.unplaceable.size() == 1);
    CHECK(result.unplaceable[0].reason ==
          "needs 4 NVIDIA GPUs (1 replica x TP 4); the largest agent has 1");
  }
  SECTION("no agent connected: nothing placed, nothing judged") {
    PlacementRound result = Run(queue, {A("big").Gpus(4).Disconnected()});
    CHECK(result.placements.empty());
    CHECK(result.unplaceable.empty());
  }
}

TEST_CASE("Schedule: an impossible scenario is explained") {
  SECTION("too few GPUs: replicas x TP named") {
    Queue queue;
    queue.Add("j", Vllm(v1::NVIDIA, 2, 2), v1::GPU, 0);
    PlacementRound result = Run(queue, {A("a").Gpus(2), A("b").Gpus(1)});
    REQUIRE(result.unplaceable.size() == 1);
    CHECK(result.unplaceable[0].job_id == "j");
    CHECK(result.unplaceable[0].scenario_id == "j/0");
    CHECK(result.unplaceable[0].reason ==
          "needs 4 NVIDIA GPUs (2 replicas x TP 2); the largest agent has 2");
  }
  SECTION("every requirement met somewhere, never all on one agent") {
    Queue queue;
    queue.Add("j", Vllm(v1::NVIDIA, 1, 2), v1::NVME, 0);
    PlacementRound result = Run(queue, {A("gpus").Gpus(2).NvmePath(""), A("disk").Gpus(1)});
    REQUIRE(result.unplaceable.size() == 1);
    CHECK(result.unplaceable[0].reason ==
          "no connected agent meets every requirement: "
          "disk needs 2 NVIDIA GPUs (1 replica x TP 2), has 1; "
          "gpus needs an NVMe cache path (tier NVME), has none");
  }
}

TEST_CASE("Schedule: many scenarios, fewer agents: one each, the rest wait in order") {
  Queue queue;
  for (int i = 0; i < 6; ++i) queue.Add("j", Vllm(), v1::GPU, i);
  PlacementRound result = Run(queue, {A("b").Gpus(1), A("a").Gpus(1), A("c").Gpus(2)});
  CHECK(Placed(result) == std::vector<std::string>{"j/0->a", "j/1->b", "j/2->c"});
  CHECK(result.unplaceable.empty());
}

TEST_CASE("RequirementsOf: GPUs, profiles and pools by engine and tier") {
  v1::Scenario scenario;
  scenario.set_tier(v1::NVME);
  ScenarioRequirements amd = RequirementsOf(Vllm(v1::AMD, 2, 4), scenario);
  CHECK(amd.gpus == 8);
  CHECK(amd.vendor == v1::AMD);
  CHECK(amd.engine_profile == "vllm-amd");
  CHECK(amd.cache_profile == std::optional<std::string>("lmcache-nvme"));
  CHECK(amd.cpu_memory_bytes == 8 * kGib);
  CHECK(amd.nvme_free_bytes == 64 * kGib);
  CHECK(amd.nvme_path);

  scenario.set_tier(v1::GPU);
  ScenarioRequirements sim = RequirementsOf(Sim(2), scenario);
  CHECK(sim.gpus == 0);
  CHECK(sim.engine_profile == "sim-vllm");
  CHECK_FALSE(sim.cache_profile.has_value());
  CHECK(sim.cpu_memory_bytes == 0);
  CHECK_FALSE(sim.nvme_path);
}

}  // namespace
}  // namespace kvbench::controller
