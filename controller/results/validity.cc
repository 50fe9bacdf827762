#include "controller/results/validity.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kvbench::results {
namespace {

// The documented defaults of the optional spec fields that are held fixed (job.proto).
constexpr int kDefaultReplicas = 1;
constexpr int kDefaultTensorParallelSize = 1;

// 1234567 -> "1,234,567".
std::string WithCommas(int64_t value) {
  std::string digits = absl::StrCat(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string TierName(v1::Tier tier) {
  const std::string& name = v1::Tier_Name(tier);
  return name.empty() ? absl::StrCat("tier ", static_cast<int>(tier)) : name;
}

std::string Quoted(const std::string& text) { return absl::StrCat("\"", text, "\""); }

int Replicas(const v1::JobSpec& spec) {
  return spec.has_replicas() ? spec.replicas() : kDefaultReplicas;
}

void Add(v1::Validity* validity, const char* code, std::string message) {
  v1::ValidityReason* reason = validity->add_reasons();
  reason->set_code(code);
  reason->set_message(std::move(message));
}

struct Parameter {
  const char* name;
  std::function<std::string(const ScenarioRun&)> value;
};

// What a comparison holds fixed across tiers, each as the text a reason shows.
const std::vector<Parameter>& HeldFixed() {
  static const auto* parameters = new std::vector<Parameter>{
      {"model", [](const ScenarioRun& r) { return Quoted(r.spec.model()); }},
      {"build", [](const ScenarioRun& r) { return v1::Vendor_Name(r.spec.build()); }},
      {"engine", [](const ScenarioRun& r) { return v1::Engine_Name(r.spec.engine()); }},
      {"concurrency", [](const ScenarioRun& r) { return absl::StrCat(r.scenario.concurrency()); }},
      {"isl", [](const ScenarioRun& r) { return absl::StrCat(r.spec.isl()); }},
      {"osl", [](const ScenarioRun& r) { return absl::StrCat(r.spec.osl()); }},
      {"num_rounds", [](const ScenarioRun& r) { return absl::StrCat(r.spec.num_rounds()); }},
      {"replicas", [](const ScenarioRun& r) { return absl::StrCat(Replicas(r.spec)); }},
      {"tensor_parallel_size",
       [](const ScenarioRun& r) {
         return absl::StrCat(r.spec.has_tensor_parallel_size() ? r.spec.tensor_parallel_size()
                                                               : kDefaultTensorParallelSize);
       }},
      {"dataset code", [](const ScenarioRun& r) { return Quoted(r.spec.dataset().code()); }},
      {"dataset path", [](const ScenarioRun& r) { return Quoted(r.spec.dataset().path()); }},
  };
  return *parameters;
}

// "osl differs: 64 (00-gpu-c8) vs 128 (01-cpu-ram-c8)", against the group's first scenario.
void CheckHeldFixed(const std::vector<const ScenarioRun*>& group, v1::Validity* validity) {
  for (const Parameter& parameter : HeldFixed()) {
    const std::string first = parameter.value(*group.front());
    std::vector<std::string> others;
    for (const ScenarioRun* run : group) {
      const std::string value = parameter.value(*run);
      if (value != first)
        others.push_back(absl::StrCat(value, " (", run->scenario.scenario_id(), ")"));
    }
    if (others.empty()) continue;
    Add(validity, kParameterDiffers,
        absl::StrCat(parameter.name, " differs: ", first, " (",
                     group.front()->scenario.scenario_id(), ") vs ", absl::StrJoin(others, ", ")));
  }
}

void CheckSucceeded(const std::vector<const ScenarioRun*>& group, v1::Validity* validity) {
  for (const ScenarioRun* run : group) {
    const std::string& id = run->scenario.scenario_id();
    if (run->state != v1::SCENARIO_STATE_SUCCEEDED) {
      Add(validity, kScenarioDidNotSucceed,
          absl::StrCat(id, " did not succeed: ",
                       run->error.empty() ? v1::ScenarioState_Name(run->state) : run->error));
    } else if (!run->result) {
      Add(validity, kScenarioDidNotSucceed, absl::StrCat(id, " succeeded but has no result"));
    }
  }
}

void CheckSessions(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity) {
  if (with_results.empty()) return;
  std::vector<std::string> achieved;
  bool differ = false;
  // Identical shortfalls (the dataset is shared) become one reason naming every tier.
  std::vector<std::pair<std::string, std::vector<std::string>>> shortfalls;
  for (const ScenarioRun* run : with_results) {
    const v1::SessionCounts& s = run->result->sessions();
    const std::string tier = TierName(run->scenario.tier());
    achieved.push_back(absl::StrCat(tier, " ", s.achieved()));
    differ |= s.achieved() != with_results.front()->result->sessions().achieved();
    if (s.achieved() < s.requested()) {
      std::string text =
          s.dataset_ceiling() < s.requested()
              ? absl::StrCat(
                    s.requested() == run->scenario.concurrency() ? "concurrency " : "sessions ",
                    s.requested(), " requested but the dataset yields ", s.dataset_ceiling(),
                    " virtual users at num_rounds ", run->spec.num_rounds())
              : absl::StrCat(s.achieved(), " sessions achieved of ", s.requested(), " requested");
      auto it = std::find_if(shortfalls.begin(), shortfalls.end(),
                             [&](const auto& entry) { return entry.first == text; });
      if (it == shortfalls.end()) it = shortfalls.insert(shortfalls.end(), {text, {}});
      it->second.push_back(tier);
    }
  }
  if (differ) {
    Add(validity, kAchievedSessionsDiffer,
        absl::StrCat("achieved sessions differ: ", absl::StrJoin(achieved, ", ")));
  }
  for (const auto& [text, tiers] : shortfalls) {
    Add(validity, kSessionsBelowRequested,
        absl::StrCat(text, " (", absl::StrJoin(tiers, ", "), ")"));
  }
}

void CheckFailures(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity) {
  for (const ScenarioRun* run : with_results) {
    const v1::SessionCounts& s = run->result->sessions();
    if (s.error() == 0 && s.failed_requests() == 0) continue;
    Add(validity, kFailedSessions,
        absl::StrCat(TierName(run->scenario.tier()), ": ", s.error(), " error sessions, ",
                     s.failed_requests(), " failed requests"));
  }
}

// result.process_failures: a replica (or the cache server) that died mid-run served part of
// the replay with less capacity and less cache than its tier is meant to have.
void CheckProcessFailures(const std::vector<const ScenarioRun*>& with_results,
                          v1::Validity* validity) {
  for (const ScenarioRun* run : with_results) {
    for (const std::string& failure : run->result->process_failures()) {
      Add(validity, kProcessFailed, absl::StrCat(TierName(run->scenario.tier()), ": ", failure));
    }
  }
}

const ScenarioRun* GpuBaseline(const std::vector<const ScenarioRun*>& group) {
  for (const ScenarioRun* run : group) {
    if (run->scenario.tier() == v1::GPU) return run;
  }
  return nullptr;
}

bool OffloadServedExternalHits(const std::vector<const ScenarioRun*>& with_results) {
  return std::any_of(with_results.begin(), with_results.end(), [](const ScenarioRun* run) {
    const v1::EngineMetrics& engine = run->result->engine();
    return run->scenario.tier() != v1::GPU && engine.has_external_hit_rate() &&
           engine.external_hit_rate() > 0;
  });
}

// The GPU tier's KV capacity in tokens and how it is formed. The sampler reads
// vllm:cache_config_info's num_gpu_blocks from the first replica that reports it (one replica's
// count, not a sum: agent/sampler/sampler.cc FirstValue), so the tier holds replicas x that.
struct Capacity {
  int64_t tokens = 0;
  std::string formula;
};
std::optional<Capacity> GpuCapacity(const ScenarioRun& gpu) {
  const v1::EngineMetrics& engine = gpu.result->engine();
  if (!engine.has_num_gpu_blocks() || !engine.has_block_size() || engine.block_size() <= 0) {
    return std::nullopt;
  }
  const int replicas = Replicas(gpu.spec);
  Capacity capacity;
  capacity.tokens = int64_t{replicas} * engine.num_gpu_blocks() * engine.block_size();
  capacity.formula = absl::StrCat(
      replicas, replicas == 1 ? " replica x " : " replicas x ", WithCommas(engine.num_gpu_blocks()),
      " blocks x ", engine.block_size(), " tokens = ", WithCommas(capacity.tokens), " tokens");
  return capacity;
}

// Every tier that reports its KV shape must have the GPU tier's capacity: a tier with more GPU KV
// would be compared on more than its offload.
void CheckGpuKvCapacity(const std::vector<const ScenarioRun*>& with_results,
                        v1::Validity* validity) {
  std::vector<std::string> capacities;
  std::optional<int64_t> first;
  bool differ = false;
  for (const ScenarioRun* run : with_results) {
    const std::optional<Capacity> capacity = GpuCapacity(*run);
    if (!capacity) continue;
    capacities.push_back(absl::StrCat(TierName(run->scenario.tier()), " ", capacity->formula));
    if (!first) first = capacity->tokens;
    differ |= capacity->tokens != *first;
  }
  if (!differ) return;
  Add(validity, kGpuKvCapacityDiffers,
      absl::StrCat("GPU KV capacity differs: ", absl::StrJoin(capacities, ", ")));
}

// After the INVALID checks passed: VALID, or NOT_EXERCISED when offload was never needed.
void DecideExercised(const ScenarioRun& gpu, const std::vector<const ScenarioRun*>& with_results,
                     v1::Validity* validity) {
  validity->set_verdict(v1::VERDICT_VALID);
  if (OffloadServedExternalHits(with_results)) return;  // the offload tier was used
  const v1::ScenarioResult& result = *gpu.result;
  const std::optional<Capacity> capacity = GpuCapacity(gpu);
  if (capacity && result.has_peak_concurrent_tokens()) {
    if (result.peak_concurrent_tokens() > capacity->tokens) return;
    validity->set_verdict(v1::VERDICT_NOT_EXERCISED);
    Add(validity, kWorkingSetFitsGpu,
        absl::StrCat("working set peak ", WithCommas(result.peak_concurrent_tokens()),
                     " tokens fits the GPU tier's KV capacity of ", capacity->formula,
                     ", and no offload tier saw external prefix-cache hits: offload was never "
                     "needed"));
    return;
  }
  if (result.engine().num_preemptions() > 0) return;  // the GPU tier ran out of KV blocks
  std::vector<std::string> unknown;
  if (!result.has_peak_concurrent_tokens()) unknown.push_back("working set not measured");
  if (!capacity) unknown.push_back("num_gpu_blocks or block_size not reported");
  validity->set_verdict(v1::VERDICT_NOT_EXERCISED);
  Add(validity, kWorkingSetFitsGpu,
      absl::StrCat("the working set could not be compared with the GPU tier's KV capacity (",
                   absl::StrJoin(unknown, "; "),
                   "), and no offload tier saw external prefix-cache hits nor did the GPU tier "
                   "preempt requests: offload was not shown to be exercised"));
}

void Note(v1::Validity* validity, const char* code, std::string message) {
  v1::ValidityReason* note = validity->add_notes();
  note->set_code(code);
  note->set_message(std::move(message));
}

// Notes on LMCache's own measurements: dropped metric events, NVMe reads from the page cache.
void AddLmcacheNotes(const std::vector<const ScenarioRun*>& group, v1::Validity* validity) {
  for (const ScenarioRun* run : group) {
    if (run->state != v1::SCENARIO_STATE_SUCCEEDED || !run->result) continue;
    const std::string tier = TierName(run->scenario.tier());
    const v1::LmcacheMetrics& lmcache = run->result->lmcache();
    if (lmcache.dropped_events() > 0) {
      Note(validity, kLmcacheEventsDropped,
           absl::StrCat(tier, ": LMCache dropped ", WithCommas(lmcache.dropped_events()),
                        " metric events during the replay, so its LMCache counters (hit tokens, "
                        "evictions, chunks loaded) are undercounted; TTFT is not affected"));
    }
    for (const v1::ResultWarning& warning : run->result->warnings()) {
      if (warning.code() == kNvmeReadsNotFromDisk) {
        Note(validity, kNvmeReadsNotFromDisk, absl::StrCat(tier, ": ", warning.message()));
      }
    }
  }
}

bool Finished(v1::ScenarioState state) {
  return state == v1::SCENARIO_STATE_SUCCEEDED || state == v1::SCENARIO_STATE_FAILED ||
         state == v1::SCENARIO_STATE_CANCELLED;
}

v1::Validity JudgeGroup(const std::string& name, const std::vector<const ScenarioRun*>& group) {
  v1::Validity validity;
  validity.set_comparison_group(name);
  AddLmcacheNotes(group, &validity);
  CheckHeldFixed(group, &validity);
  CheckSucceeded(group, &validity);
  std::vector<const ScenarioRun*> with_results;
  for (const ScenarioRun* run : group) {
    if (run->state == v1::SCENARIO_STATE_SUCCEEDED && run->result) with_results.push_back(run);
  }
  CheckSessions(with_results, &validity);
  CheckFailures(with_results, &validity);
  CheckGpuKvCapacity(with_results, &validity);
  CheckProcessFailures(with_results, &validity);
  const ScenarioRun* gpu = GpuBaseline(group);
  if (gpu == nullptr) {
    std::vector<std::string> tiers;
    for (const ScenarioRun* run : group) tiers.push_back(TierName(run->scenario.tier()));
    Add(&validity, kNoBaseline,
        absl::StrCat("no GPU scenario to compare against (tiers: ", absl::StrJoin(tiers, ", "),
                     ")"));
  }
  if (validity.reasons_size() > 0) {
    validity.set_verdict(v1::VERDICT_INVALID);
  } else {
    DecideExercised(*gpu, with_results, &validity);
  }
  return validity;
}

}  // namespace

std::vector<v1::Validity> ComputeValidity(const std::vector<ScenarioRun>& runs) {
  struct Group {
    std::string name;
    std::vector<const ScenarioRun*> runs;
  };
  std::vector<Group> groups;  // in order of first appearance
  for (const ScenarioRun& run : runs) {
    std::string name = run.scenario.comparison_group().empty()
                           ? absl::StrCat("c", run.scenario.concurrency())
                           : run.scenario.comparison_group();
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& group) { return group.name == name; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{std::move(name), {}});
    it->runs.push_back(&run);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return a.runs.front()->scenario.concurrency() < b.runs.front()->scenario.concurrency();
  });
  std::vector<v1::Validity> verdicts;
  for (const Group& group : groups) {
    if (group.runs.size() < 2) continue;  // nothing is compared
    if (!std::all_of(group.runs.begin(), group.runs.end(),
                     [](const ScenarioRun* run) { return Finished(run->state); })) {
      continue;  // results are not all in yet
    }
    verdicts.push_back(JudgeGroup(group.name, group.runs));
  }
  return verdicts;
}

}  // namespace kvbench::results
