#include "controller/results/validity.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/lifecycle/lifecycle.h"
#include "controller/results/offload_evidence.h"
#include "controller/results/release_checks.h"
#include "controller/results/validity_checks.h"
#include "controller/results/validity_notes.h"
#include "controller/results/validity_text.h"

namespace kvbench::results {
namespace {

using Finding = GpuPressure::Finding;

const ScenarioRun* GpuBaseline(const std::vector<const ScenarioRun*>& group) {
  for (const ScenarioRun* run : group) {
    if (run->scenario.tier() == v1::GPU) return run;
  }
  return nullptr;
}

// After the INVALID checks passed: VALID on evidence of offload, else NOT_EXERCISED naming it.
void DecideExercised(const ScenarioRun& gpu, const std::vector<const ScenarioRun*>& with_results,
                     v1::Validity* validity) {
  const GpuPressure pressure = AssessGpuPressure(gpu);
  const OffloadService service = AssessOffloadService(with_results);
  const std::string gpu_facts =
      pressure.facts.empty() ? "" : absl::StrCat(" (", absl::StrJoin(pressure.facts, "; "), ")");
  const std::string served = absl::StrJoin(service.served, ", ");
  const std::string idle = absl::StrJoin(service.idle, ", ");
  if (pressure.finding == Finding::kRanShort && !service.served.empty()) {
    validity->set_verdict(v1::VERDICT_VALID);
    AddNote(validity, kOffloadExercised,
            absl::StrCat("the GPU tier ran short of KV cache", gpu_facts, "; ", served,
                         service.idle.empty() ? "" : absl::StrCat("; ", idle)));
    return;
  }
  validity->set_verdict(v1::VERDICT_NOT_EXERCISED);
  switch (pressure.finding) {
    case Finding::kNeverRanShort:
      AddReason(validity, kGpuNeverRanShort,
                absl::StrCat("the GPU tier never ran short of KV cache", gpu_facts,
                             service.served.empty()
                                 ? absl::StrCat(", and offload served nothing (", idle, ")")
                                 : absl::StrCat(": what offload served (", served,
                                                ") was prefixes computed elsewhere (another "
                                                "replica, an earlier request), not capacity the "
                                                "GPU lacked"),
                             ": the deltas are not an offload effect"));
      return;
    case Finding::kRanShort:
      AddReason(validity, kOffloadServedNothing,
                absl::StrCat("the GPU tier ran short of KV cache", gpu_facts,
                             ", but offload served nothing (", idle,
                             "): the deltas are not an offload effect"));
      return;
    case Finding::kUnknown:
      AddReason(
          validity, kExerciseUnknown,
          absl::StrCat("nothing measured shows that the GPU tier ran short of KV cache", gpu_facts,
                       ": neither its reuse nor its working set against its capacity was "
                       "measured",
                       service.served.empty()
                           ? absl::StrCat(", and offload served nothing (", idle, ")")
                           : absl::StrCat("; ", served),
                       ": offload was not shown to be exercised"));
      return;
  }
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
  AddRoutingNote(with_results, &validity);
  CheckSessions(with_results, &validity);
  CheckSessionsLost(with_results, &validity);
  CheckFailures(with_results, &validity);
  CheckGpuKvCapacity(with_results, &validity);
  CheckProcessFailures(with_results, &validity);
  CheckL2StoreFailures(with_results, &validity);
  CheckEqualWork(with_results, &validity);
  CheckVersions(with_results, &validity);
  CheckNvmePoolBounded(with_results, &validity);
  const ScenarioRun* gpu = GpuBaseline(group);
  if (gpu == nullptr) {
    std::vector<std::string> tiers;
    for (const ScenarioRun* run : group) tiers.push_back(TierName(run->scenario.tier()));
    AddReason(&validity, kNoBaseline,
              absl::StrCat(
                  "no GPU scenario to compare against (tiers: ", absl::StrJoin(tiers, ", "), ")"));
  }
  if (validity.reasons_size() > 0) {
    validity.set_verdict(v1::VERDICT_INVALID);
  } else {
    DecideExercised(*gpu, with_results, &validity);
  }
  // Last, so that the evidence of offload (or its absence) still shows beside it: what the
  // verdict would have been had the host kept up.
  const int reasons_before = validity.reasons_size();
  CheckHostSaturated(with_results, &validity);
  if (validity.reasons_size() > reasons_before) validity.set_verdict(v1::VERDICT_INVALID);
  return validity;
}

int RepeatOf(const ScenarioRun& run) { return std::max(run.scenario.repeat(), 1); }

int Severity(v1::Verdict verdict) {
  switch (verdict) {
    case v1::VERDICT_INVALID:
      return 2;
    case v1::VERDICT_NOT_EXERCISED:
      return 1;
    default:
      return 0;
  }
}

// A group whose cells ran several times (JobSpec.repeats): each repeat is a complete
// comparison of its own (one seed, the same users in every tier), judged alone; the group takes
// the worst verdict, and every reason and note says which repeat it came from. A repeat with one
// scenario compares nothing and is skipped, as is a search's repeat without a GPU scenario;
// nullopt when every repeat is.
// A capacity search probes each tier where its own search needs to: a concurrency
// only offload tiers reached has no GPU scenario by design, and compares nothing against GPU.
bool SearchProbeWithoutGpu(const std::vector<const ScenarioRun*>& runs) {
  return runs.front()->spec.has_concurrency_search() && GpuBaseline(runs) == nullptr;
}

std::optional<v1::Validity> JudgeRepeats(const std::string& name,
                                         const std::vector<const ScenarioRun*>& group) {
  std::map<int, std::vector<const ScenarioRun*>> by_repeat;
  for (const ScenarioRun* run : group) by_repeat[RepeatOf(*run)].push_back(run);
  if (by_repeat.size() == 1) {
    if (group.size() < 2 || SearchProbeWithoutGpu(group)) return std::nullopt;
    return JudgeGroup(name, group);
  }
  std::optional<v1::Validity> merged;
  for (const auto& [repeat, runs] : by_repeat) {
    if (runs.size() < 2 || SearchProbeWithoutGpu(runs)) continue;
    const v1::Validity one = JudgeGroup(name, runs);
    if (!merged.has_value()) {
      merged.emplace();
      merged->set_comparison_group(name);
      merged->set_verdict(one.verdict());
    } else if (Severity(one.verdict()) > Severity(merged->verdict())) {
      merged->set_verdict(one.verdict());
    }
    const std::string prefix = absl::StrCat("repeat ", repeat, ": ");
    for (const v1::ValidityReason& reason : one.reasons()) {
      AddReason(&*merged, reason.code().c_str(), absl::StrCat(prefix, reason.message()));
    }
    for (const v1::ValidityReason& note : one.notes()) {
      AddNote(&*merged, note.code().c_str(), absl::StrCat(prefix, note.message()));
    }
  }
  return merged;
}

}  // namespace

std::string ComparisonGroupOf(const v1::Scenario& scenario) {
  return scenario.comparison_group().empty() ? absl::StrCat("c", scenario.concurrency())
                                             : scenario.comparison_group();
}

std::vector<v1::Validity> ComputeValidity(const std::vector<ScenarioRun>& runs) {
  struct Group {
    std::string name;
    std::vector<const ScenarioRun*> runs;
  };
  std::vector<Group> groups;  // in order of first appearance
  for (const ScenarioRun& run : runs) {
    std::string name = ComparisonGroupOf(run.scenario);
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
    if (!std::all_of(group.runs.begin(), group.runs.end(),
                     [](const ScenarioRun* run) { return IsScenarioEnded(run->state); })) {
      continue;  // results are not all in yet
    }
    // Nothing is compared in a group of one scenario (or of one per repeat).
    if (std::optional<v1::Validity> verdict = JudgeRepeats(group.name, group.runs)) {
      verdicts.push_back(*std::move(verdict));
    }
  }
  return verdicts;
}

}  // namespace kvbench::results
