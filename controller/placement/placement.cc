#include "controller/placement/placement.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log/logging.h"
#include "controller/placement/agent_preflight.h"

namespace kvbench::controller {
namespace {

// The requirements, in the order they are checked and explained.
enum class Check {
  kGpus,
  kEngineProfile,
  kCacheProfile,
  kCpuMemory,
  kNvmePath,
  kNvmeFree,
  kPreflight
};

// One applicable requirement against one agent.
struct CheckResult {
  Check check;
  bool met = false;
  std::string need;  // "needs 4 NVIDIA GPUs (2 replicas x TP 2)"
  std::string has;   // what this agent offers: "has 2", "not loaded"
};

int64_t PoolBytes(double gb) { return static_cast<int64_t>(std::ceil(gb * kBytesPerPoolGb)); }

std::string Gib(int64_t bytes) {
  return absl::StrCat(static_cast<double>(bytes) / kBytesPerPoolGb, " GiB");
}

std::string VendorName(v1::Vendor vendor) {
  return vendor == v1::VENDOR_UNSPECIFIED ? "unspecified-vendor" : v1::Vendor_Name(vendor);
}

std::string Plural(int64_t n, absl::string_view word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

int32_t GpusOfVendor(const v1::AgentCapabilities& agent, v1::Vendor vendor) {
  return static_cast<int32_t>(
      std::count_if(agent.gpus().begin(), agent.gpus().end(),
                    [vendor](const v1::GpuInfo& gpu) { return gpu.vendor() == vendor; }));
}

bool HasProfile(const v1::AgentCapabilities& agent, const std::string& name) {
  return std::find(agent.profiles().begin(), agent.profiles().end(), name) !=
         agent.profiles().end();
}

CheckResult ProfileCheck(Check check, const std::string& name, const v1::AgentCapabilities& agent) {
  bool met = HasProfile(agent, name);
  return {check, met, absl::StrCat("needs profile ", name), met ? "loaded" : "not loaded"};
}

// The agent's latest preflight: no FAIL for the scenario's tier and profiles.
CheckResult PreflightCheckResult(const ScenarioRequirements& req,
                                 const v1::AgentCapabilities& agent) {
  const std::vector<const v1::PreflightCheck*> blockers =
      PreflightBlockers(agent, req.tier, req.engine_profile, req.cache_profile);
  std::vector<std::string> failing;
  for (const v1::PreflightCheck* check : blockers) {
    failing.push_back(absl::StrCat(check->name(), " FAILs: ", check->detail()));
  }
  const std::string tier = req.tier == v1::TIER_UNSPECIFIED ? "its tier" : v1::Tier_Name(req.tier);
  return {Check::kPreflight, blockers.empty(),
          absl::StrCat("needs a preflight that passes for ", tier),
          blockers.empty() ? "passes" : absl::StrJoin(failing, "; ")};
}

std::vector<CheckResult> Evaluate(const ScenarioRequirements& req,
                                  const v1::AgentCapabilities& agent) {
  std::vector<CheckResult> results;
  if (req.gpus > 0) {
    int32_t has = GpusOfVendor(agent, req.vendor);
    results.push_back(
        {Check::kGpus, has >= req.gpus,
         absl::StrCat("needs ", Plural(req.gpus, VendorName(req.vendor) + " GPU"), " (",
                      Plural(req.replicas, "replica"), " x TP ", req.tensor_parallel_size, ")"),
         absl::StrCat("has ", has)});
  }
  results.push_back(ProfileCheck(Check::kEngineProfile, req.engine_profile, agent));
  if (req.cache_profile) {
    results.push_back(ProfileCheck(Check::kCacheProfile, *req.cache_profile, agent));
  }
  if (req.cpu_memory_bytes > 0) {
    results.push_back(
        {Check::kCpuMemory, agent.cpu_memory_bytes() >= req.cpu_memory_bytes,
         absl::StrCat("needs ", Gib(req.cpu_memory_bytes), " of CPU memory (cpu_pool_gb)"),
         absl::StrCat("has ", Gib(agent.cpu_memory_bytes()))});
  }
  if (req.nvme_path) {
    bool met = !agent.nvme_cache_path().empty();
    results.push_back({Check::kNvmePath, met, "needs an NVMe cache path (tier NVME)",
                       met ? "has one" : "has none"});
  }
  // Free space is only judged where there is a path to judge it on.
  if (req.nvme_free_bytes > 0 && !agent.nvme_cache_path().empty()) {
    results.push_back(
        {Check::kNvmeFree, agent.nvme_free_bytes() >= req.nvme_free_bytes,
         absl::StrCat("needs ", Gib(req.nvme_free_bytes), " free on NVMe (nvme_pool_gb)"),
         absl::StrCat("has ", Gib(agent.nvme_free_bytes()), " free")});
  }
  results.push_back(PreflightCheckResult(req, agent));
  return results;
}

// The best any of `agents` offers for `check`, said after a requirement none of them meets.
std::string BestOffer(Check check, const ScenarioRequirements& req,
                      const std::vector<const v1::AgentCapabilities*>& agents) {
  int64_t best = 0;
  for (const v1::AgentCapabilities* agent : agents) {
    switch (check) {
      case Check::kGpus:
        best = std::max<int64_t>(best, GpusOfVendor(*agent, req.vendor));
        break;
      case Check::kCpuMemory:
        best = std::max(best, agent->cpu_memory_bytes());
        break;
      case Check::kNvmeFree:
        best = std::max(best, agent->nvme_free_bytes());
        break;
      default:
        break;
    }
  }
  switch (check) {
    case Check::kGpus:
      return absl::StrCat("the largest agent has ", best);
    case Check::kCpuMemory:
      return absl::StrCat("the largest agent has ", Gib(best));
    case Check::kNvmeFree:
      return absl::StrCat("the most free on any agent with an NVMe path is ", Gib(best));
    case Check::kNvmePath:
      return "no connected agent has one";
    default:
      return "no connected agent has it";
  }
}

// Why no agent of `connected` (non-empty) can run a scenario with `req`; empty when one can.
std::string Explain(const ScenarioRequirements& req,
                    const std::vector<const v1::AgentCapabilities*>& connected) {
  std::map<Check, int> unmet_count;  // check -> agents that fail it
  std::map<Check, std::string> need;
  std::vector<std::string> per_agent;
  std::vector<std::string> preflights;  // "node-1: nvme.block_device FAILs: ..." per agent
  for (const v1::AgentCapabilities* agent : connected) {
    bool fits = true;
    for (const CheckResult& result : Evaluate(req, *agent)) {
      need[result.check] = result.need;
      if (result.met) continue;
      ++unmet_count[result.check];
      if (result.check == Check::kPreflight) {
        preflights.push_back(absl::StrCat(agent->agent_id(), ": ", result.has));
      }
      if (fits) {
        per_agent.push_back(absl::StrCat(agent->agent_id(), " ", result.need, ", ", result.has));
        fits = false;
      }
    }
    if (fits) return "";
  }
  std::vector<std::string> nobody_meets;
  for (const auto& [check, count] : unmet_count) {
    if (count < static_cast<int>(connected.size())) continue;
    nobody_meets.push_back(absl::StrCat(need[check], "; ",
                                        check == Check::kPreflight
                                            ? absl::StrJoin(preflights, "; ")
                                            : BestOffer(check, req, connected)));
  }
  if (!nobody_meets.empty()) return absl::StrJoin(nobody_meets, "; ");
  return absl::StrCat("no connected agent meets every requirement: ",
                      absl::StrJoin(per_agent, "; "));
}

// Priority first (higher), then FIFO, then job_id and the scenario's place in its job.
bool RunsBefore(const QueuedScenario* a, const QueuedScenario* b) {
  if (a->priority != b->priority) return a->priority > b->priority;
  if (a->submit_seq != b->submit_seq) return a->submit_seq < b->submit_seq;
  if (a->job_id != b->job_id) return a->job_id < b->job_id;
  return a->scenario.index() < b->scenario.index();
}

// Best fit: fewer GPUs first (keeps big agents for big scenarios), then agents without an NVMe
// path (keeps those for NVME scenarios, which nothing else can run), then agent_id.
bool FitsBetter(const v1::AgentCapabilities* a, const v1::AgentCapabilities* b) {
  if (a->gpus_size() != b->gpus_size()) return a->gpus_size() < b->gpus_size();
  const bool a_nvme = !a->nvme_cache_path().empty();
  const bool b_nvme = !b->nvme_cache_path().empty();
  if (a_nvme != b_nvme) return !a_nvme;
  return a->agent_id() < b->agent_id();
}

}  // namespace

ScenarioRequirements RequirementsOf(const v1::JobSpec& spec, const v1::Scenario& scenario) {
  ScenarioRequirements req;
  const bool sim = spec.engine() == v1::SIM;
  const bool cache_server = scenario.tier() == v1::CPU_RAM || scenario.tier() == v1::NVME;
  req.replicas = spec.replicas();
  req.tensor_parallel_size = spec.tensor_parallel_size();
  if (sim) {
    req.engine_profile = kSimVllmProfile;
    if (cache_server) req.cache_profile = kSimLmcacheProfile;
  } else {
    req.gpus = req.replicas * req.tensor_parallel_size;
    req.vendor = spec.build();
    req.engine_profile = spec.build() == v1::AMD ? kVllmAmdProfile : kVllmNvidiaProfile;
    if (cache_server) {
      req.cache_profile = scenario.tier() == v1::NVME ? kLmcacheNvmeProfile : kLmcacheCpuProfile;
      req.cpu_memory_bytes = PoolBytes(spec.cpu_pool_gb());
    }
    if (scenario.tier() == v1::NVME) req.nvme_free_bytes = PoolBytes(spec.nvme_pool_gb());
  }
  req.nvme_path = scenario.tier() == v1::NVME;
  req.tier = scenario.tier();
  return req;
}

std::vector<std::string> UnmetRequirements(const ScenarioRequirements& req,
                                           const v1::AgentCapabilities& agent) {
  std::vector<std::string> unmet;
  for (const CheckResult& result : Evaluate(req, agent)) {
    if (!result.met) unmet.push_back(absl::StrCat(result.need, ", ", result.has));
  }
  return unmet;
}

bool HasLabels(const v1::AgentCapabilities& agent,
               const google::protobuf::Map<std::string, std::string>& labels) {
  for (const auto& [key, value] : labels) {
    auto found = agent.labels().find(key);
    if (found == agent.labels().end() || found->second != value) return false;
  }
  return true;
}

std::string LabelsText(const google::protobuf::Map<std::string, std::string>& labels) {
  if (labels.empty()) return "no labels";
  std::map<std::string, std::string> sorted(labels.begin(), labels.end());
  return absl::StrJoin(sorted, ",", absl::PairFormatter("="));
}

PlacementRound Place(const std::vector<QueuedScenario>& queue,
                     const std::vector<v1::AgentView>& agents) {
  std::vector<const v1::AgentCapabilities*> connected;
  std::vector<const v1::AgentCapabilities*> idle;
  for (const v1::AgentView& view : agents) {
    if (view.state() != v1::AGENT_STATE_CONNECTED) continue;
    connected.push_back(&view.capabilities());
    if (view.running_scenario_id().empty()) idle.push_back(&view.capabilities());
  }
  std::sort(connected.begin(), connected.end(), FitsBetter);
  std::sort(idle.begin(), idle.end(), FitsBetter);

  std::vector<const QueuedScenario*> order;
  order.reserve(queue.size());
  for (const QueuedScenario& queued : queue) {
    KV_CHECK(queued.spec != nullptr) << "scenario=" << queued.scenario.scenario_id();
    order.push_back(&queued);
  }
  std::stable_sort(order.begin(), order.end(), RunsBefore);

  PlacementRound result;
  if (connected.empty()) return result;
  for (const QueuedScenario* queued : order) {
    const ScenarioRequirements req = RequirementsOf(*queued->spec, queued->scenario);
    const std::string& pinned = queued->scenario.agent_id();
    auto selected = [queued, &pinned](const v1::AgentCapabilities* agent) {
      return (pinned.empty() || agent->agent_id() == pinned) &&
             HasLabels(*agent, queued->spec->placement().agent_labels());
    };
    auto fits = [&req, &selected](const v1::AgentCapabilities* agent) {
      return selected(agent) && UnmetRequirements(req, *agent).empty();
    };
    // `idle` is sorted best fit first, so the first that fits is the choice.
    auto chosen = std::find_if(idle.begin(), idle.end(), fits);
    if (chosen != idle.end()) {
      result.placements.push_back(
          {queued->job_id, queued->scenario.scenario_id(), (*chosen)->agent_id()});
      idle.erase(chosen);
      continue;
    }
    std::vector<const v1::AgentCapabilities*> candidates;
    std::copy_if(connected.begin(), connected.end(), std::back_inserter(candidates), selected);
    if (candidates.empty()) {
      // Its agent is down: it waits for it (placement.agent_wait_s bounds the wait).
      if (!pinned.empty()) continue;
      result.unplaceable.push_back(
          {queued->job_id, queued->scenario.scenario_id(),
           absl::StrCat("no connected agent has the labels ",
                        LabelsText(queued->spec->placement().agent_labels()))});
      continue;
    }
    if (std::none_of(candidates.begin(), candidates.end(), fits)) {
      result.unplaceable.push_back(
          {queued->job_id, queued->scenario.scenario_id(), Explain(req, candidates)});
    }
  }
  return result;
}

}  // namespace kvbench::controller
