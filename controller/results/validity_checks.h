#pragma once

// The checks that make a comparison group INVALID (validity.h), each adding its named reasons.
// Pure; `group` is every scenario of the group, `with_results` those that succeeded with a result.

#include <vector>

#include "controller/results/scenario_run.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// Output (and prompt) token totals may differ by this share of the GPU tier's before the tiers
// count as having done different work (ignore_eos makes them equal; a real engine may still cut a
// request at its context length).
inline constexpr double kWorkTolerance = 0.01;

void CheckHeldFixed(const std::vector<const ScenarioRun*>& group, v1::Validity* validity);
void CheckSucceeded(const std::vector<const ScenarioRun*>& group, v1::Validity* validity);
void CheckSessions(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity);
void CheckSessionsLost(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity);
void CheckFailures(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity);
void CheckProcessFailures(const std::vector<const ScenarioRun*>& with_results,
                          v1::Validity* validity);
void CheckL2StoreFailures(const std::vector<const ScenarioRun*>& with_results,
                          v1::Validity* validity);
void CheckGpuKvCapacity(const std::vector<const ScenarioRun*>& with_results,
                        v1::Validity* validity);
void CheckEqualWork(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity);
void CheckHostSaturated(const std::vector<const ScenarioRun*>& with_results,
                        v1::Validity* validity);

// Adds a reason (code, message) to `validity`.
void AddReason(v1::Validity* validity, const char* code, std::string message);

}  // namespace kvbench::results
