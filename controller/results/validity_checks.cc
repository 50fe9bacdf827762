#include "controller/results/validity_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "controller/results/host_saturation.h"
#include "controller/results/validity.h"
#include "controller/results/validity_text.h"
#include "controller/spec/job_spec_defaults.h"

namespace kvbench::results {
namespace {

// The documented defaults of the optional spec fields that are held fixed (job.proto).
using spec::kDefaultReplicas;
using spec::kDefaultTensorParallelSize;

std::string Quoted(const std::string& text) { return absl::StrCat("\"", text, "\""); }

int Replicas(const v1::JobSpec& spec) {
  return spec.has_replicas() ? spec.replicas() : kDefaultReplicas;
}

// Messages that repeat across tiers (the dataset and the ISL are shared) become one reason naming
// every tier: "GPU, CPU_RAM: <text>", in first-seen order.
class PerTierMessages {
 public:
  void Add(const std::string& tier, std::string text) {
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const auto& entry) { return entry.first == text; });
    if (it == entries_.end()) it = entries_.insert(entries_.end(), {std::move(text), {}});
    it->second.push_back(tier);
  }
  void AddReasons(v1::Validity* validity, const char* code) const {
    for (const auto& [text, tiers] : entries_) {
      AddReason(validity, code, absl::StrCat(absl::StrJoin(tiers, ", "), ": ", text));
    }
  }

 private:
  std::vector<std::pair<std::string, std::vector<std::string>>> entries_;
};

}  // namespace

void AddReason(v1::Validity* validity, const char* code, std::string message) {
  v1::ValidityReason* reason = validity->add_reasons();
  reason->set_code(code);
  reason->set_message(std::move(message));
}

namespace {

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

}  // namespace

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
    AddReason(
        validity, kParameterDiffers,
        absl::StrCat(parameter.name, " differs: ", first, " (",
                     group.front()->scenario.scenario_id(), ") vs ", absl::StrJoin(others, ", ")));
  }
}

void CheckSucceeded(const std::vector<const ScenarioRun*>& group, v1::Validity* validity) {
  for (const ScenarioRun* run : group) {
    const std::string& id = run->scenario.scenario_id();
    if (run->state != v1::SCENARIO_STATE_SUCCEEDED) {
      AddReason(validity, kScenarioDidNotSucceed,
                absl::StrCat(id, " did not succeed: ",
                             run->error.empty() ? v1::ScenarioState_Name(run->state) : run->error));
    } else if (!run->result) {
      AddReason(validity, kScenarioDidNotSucceed, absl::StrCat(id, " succeeded but has no result"));
    }
  }
}

void CheckSessions(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity) {
  if (with_results.empty()) return;
  std::vector<std::string> achieved;
  bool differ = false;
  PerTierMessages shortfalls;
  for (const ScenarioRun* run : with_results) {
    const v1::SessionCounts& s = run->result->sessions();
    const std::string tier = TierName(run->scenario.tier());
    achieved.push_back(absl::StrCat(tier, " ", s.achieved()));
    differ |= s.achieved() != with_results.front()->result->sessions().achieved();
    if (s.achieved() < s.requested()) {
      const std::string asked =
          absl::StrCat(s.requested() == run->scenario.concurrency() ? "concurrency " : "sessions ",
                       s.requested(), " requested but ");
      std::string text;
      if (s.dataset_ceiling() < s.requested()) {
        text = absl::StrCat(asked, "the dataset yields ", s.dataset_ceiling(),
                            " virtual users at num_rounds ", run->spec.num_rounds());
      } else if (s.has_dataset_ceiling_under_isl() &&
                 s.dataset_ceiling_under_isl() < s.requested()) {
        text = absl::StrCat(asked, "only ", s.dataset_ceiling_under_isl(), " of the dataset's ",
                            s.dataset_ceiling(), " virtual users fit under ISL ", run->spec.isl());
      } else {
        text = absl::StrCat(s.achieved(), " sessions achieved of ", s.requested(), " requested");
      }
      shortfalls.Add(tier, std::move(text));
    }
  }
  if (differ) {
    AddReason(validity, kAchievedSessionsDiffer,
              absl::StrCat("achieved sessions differ: ", absl::StrJoin(achieved, ", ")));
  }
  shortfalls.AddReasons(validity, kSessionsBelowRequested);
}

void CheckFailures(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity) {
  for (const ScenarioRun* run : with_results) {
    const v1::SessionCounts& s = run->result->sessions();
    if (s.error() == 0 && s.failed_requests() == 0) continue;
    const int64_t sent = s.failed_requests() + run->result->latency().requests_completed();
    AddReason(validity, kFailedSessions,
              absl::StrCat(TierName(run->scenario.tier()), ": ", s.error(), " error sessions, ",
                           s.failed_requests(), " of ", sent, " requests failed",
                           s.first_error().empty() ? "" : " (the first: " + s.first_error() + ")"));
  }
}

// result.process_failures: a replica (or the cache server) that died mid-run served part of
// the replay with less capacity and less cache than its tier is meant to have.
void CheckProcessFailures(const std::vector<const ScenarioRun*>& with_results,
                          v1::Validity* validity) {
  for (const ScenarioRun* run : with_results) {
    for (const std::string& failure : run->result->process_failures()) {
      AddReason(validity, kProcessFailed,
                absl::StrCat(TierName(run->scenario.tier()), ": ", failure));
    }
  }
}

// lmcache.l2_store_failed_chunks: the tier under test was not the one configured, its L2 kept
// only part of what it was given (a full NVMe pool logs it once and reports success).
void CheckL2StoreFailures(const std::vector<const ScenarioRun*>& with_results,
                          v1::Validity* validity) {
  for (const ScenarioRun* run : with_results) {
    if (!run->result->has_lmcache()) continue;
    const v1::LmcacheMetrics& lmcache = run->result->lmcache();
    if (lmcache.l2_store_failed_chunks() <= 0) continue;
    AddReason(validity, kL2StoreFailed,
              absl::StrCat(TierName(run->scenario.tier()), ": ",
                           WithCommas(lmcache.l2_store_failed_chunks()), " of ",
                           WithCommas(lmcache.l2_store_submitted_chunks()),
                           " chunks failed to store into L2 (a full or failing pool disk; the "
                           "cache server's log names the error)"));
  }
}

namespace {

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

}  // namespace

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
  AddReason(validity, kGpuKvCapacityDiffers,
            absl::StrCat("GPU KV capacity differs: ", absl::StrJoin(capacities, ", ")));
}

namespace {

// "4 of 16 virtual users complete (9 incomplete, 3 not started)", the non-zero outcomes only.
std::string SessionOutcomes(const v1::SessionCounts& s, int isl) {
  std::vector<std::string> parts;
  auto part = [&](int count, const std::string& what) {
    if (count > 0) parts.push_back(absl::StrCat(count, " ", what));
  };
  part(s.incomplete(), "incomplete");
  part(s.not_started(), "not started");
  part(s.truncated_by_isl(), absl::StrCat("truncated by ISL ", isl));
  part(s.error(), "error");
  std::string text = absl::StrCat(s.complete(), " of ", s.total(), " virtual users complete (",
                                  absl::StrJoin(parts, ", "), ")");
  if (s.has_dataset_ceiling_under_isl()) {
    absl::StrAppend(&text, "; ", s.dataset_ceiling_under_isl(), " of the dataset's ",
                    s.dataset_ceiling(), " virtual users fit under ISL ", isl);
  }
  return text;
}

}  // namespace

void CheckSessionsLost(const std::vector<const ScenarioRun*>& with_results,
                       v1::Validity* validity) {
  PerTierMessages lost;
  for (const ScenarioRun* run : with_results) {
    const v1::SessionCounts& s = run->result->sessions();
    if (s.incomplete() + s.not_started() + s.truncated_by_isl() == 0) continue;
    lost.Add(TierName(run->scenario.tier()), SessionOutcomes(s, run->spec.isl()));
  }
  lost.AddReasons(validity, kSessionsLost);
}

namespace {

struct WorkMeasure {
  const char* name;
  std::function<int64_t(const v1::LatencyMetrics&)> total;
};

}  // namespace

void CheckEqualWork(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity) {
  if (with_results.size() < 2) return;
  const ScenarioRun* reference = with_results.front();
  for (const ScenarioRun* run : with_results) {
    if (run->scenario.tier() == v1::GPU) reference = run;
  }
  const WorkMeasure measures[] = {
      {"output tokens", [](const v1::LatencyMetrics& l) { return l.output_tokens_total(); }},
      {"prompt tokens", [](const v1::LatencyMetrics& l) { return l.prompt_tokens_total(); }},
  };
  for (const WorkMeasure& measure : measures) {
    const int64_t expected = measure.total(reference->result->latency());
    std::vector<std::string> values;
    bool differ = false;
    for (const ScenarioRun* run : with_results) {
      const int64_t total = measure.total(run->result->latency());
      std::string value = absl::StrCat(TierName(run->scenario.tier()), " ", WithCommas(total));
      if (run != reference && expected > 0) {
        const double change = static_cast<double>(total - expected) / static_cast<double>(expected);
        absl::StrAppend(&value, absl::StrFormat(" (%+.1f%%)", change * 100));
        differ |= std::fabs(change) > kWorkTolerance;
      } else if (run != reference) {
        differ |= total != expected;
      }
      values.push_back(std::move(value));
    }
    if (!differ) continue;
    AddReason(validity, kWorkDiffers,
              absl::StrCat(measure.name, " differ beyond ±", Percent(kWorkTolerance), ": ",
                           absl::StrJoin(values, ", "), ": the tiers did different work"));
  }
}

void CheckHostSaturated(const std::vector<const ScenarioRun*>& with_results,
                        v1::Validity* validity) {
  for (const ScenarioRun* run : with_results) {
    std::string message = HostSaturationMessage(*run->result);
    if (!message.empty()) AddReason(validity, kHostSaturated, std::move(message));
  }
}

}  // namespace kvbench::results
