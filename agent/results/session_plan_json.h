#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "agent/results/scenario_metrics.h"
#include "nlohmann/json.hpp"

namespace kvbench::agent::results {

// The runner's plan as kv-runner writes it into summary.json, merged into the summary object:
//   "planned_users": [{"user_id", "session_id", "expected_rounds", "sendable_rounds"}, ...]
//       (the chosen users in the order the replay took them; sendable_rounds = rounds before the
//       first prompt over ISL, expected_rounds when no ISL),
//   "dataset_ceiling", "dataset_ceiling_under_isl" (only when known), "selection".
// sessions_requested is the summary's own key (SummaryJson).
void AddSessionPlan(const SessionPlan& plan, nlohmann::json* summary);

// The plan back from a summary object: nullopt when it has no "planned_users" (written by an
// older runner); INVALID_ARGUMENT naming the key when a value has the wrong type.
absl::StatusOr<std::optional<SessionPlan>> ParseSessionPlan(const nlohmann::json& summary);

}  // namespace kvbench::agent::results
