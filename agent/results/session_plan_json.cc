#include "agent/results/session_plan_json.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace kvbench::agent::results {
namespace {

using Json = nlohmann::json;

absl::Status TypeError(const std::string& key, const char* expected) {
  return absl::InvalidArgumentError(absl::StrCat("summary key \"", key, "\": expected ", expected));
}

absl::StatusOr<int> IntAt(const Json& object, const std::string& key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) return TypeError(where + key, "an integer");
  return it->get<int>();
}

absl::StatusOr<std::string> StringAt(const Json& object, const std::string& key,
                                     const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return TypeError(where + key, "a string");
  return it->get<std::string>();
}

absl::StatusOr<PlannedUser> ParsePlannedUser(const Json& entry, size_t index) {
  const std::string where = absl::StrCat("planned_users[", index, "].");
  if (!entry.is_object()) return TypeError(where.substr(0, where.size() - 1), "an object");
  PlannedUser user;
  KV_ASSIGN_OR_RETURN(user.user_id, StringAt(entry, "user_id", where));
  KV_ASSIGN_OR_RETURN(user.session_id, StringAt(entry, "session_id", where));
  KV_ASSIGN_OR_RETURN(user.expected_rounds, IntAt(entry, "expected_rounds", where));
  KV_ASSIGN_OR_RETURN(user.sendable_rounds, IntAt(entry, "sendable_rounds", where));
  return user;
}

}  // namespace

void AddSessionPlan(const SessionPlan& plan, Json* summary) {
  Json users = Json::array();
  for (const PlannedUser& user : plan.planned_users) {
    users.push_back({{"user_id", user.user_id},
                     {"session_id", user.session_id},
                     {"expected_rounds", user.expected_rounds},
                     {"sendable_rounds", user.sendable()}});
  }
  (*summary)["planned_users"] = std::move(users);
  (*summary)["dataset_ceiling"] = plan.dataset_ceiling;
  if (plan.dataset_ceiling_under_isl) {
    (*summary)["dataset_ceiling_under_isl"] = *plan.dataset_ceiling_under_isl;
  }
  (*summary)["selection"] = plan.selection;
}

absl::StatusOr<std::optional<SessionPlan>> ParseSessionPlan(const Json& summary) {
  if (!summary.is_object() || !summary.contains("planned_users")) return std::nullopt;
  const Json& users = summary["planned_users"];
  if (!users.is_array()) return TypeError("planned_users", "an array");
  SessionPlan plan;
  for (size_t i = 0; i < users.size(); ++i) {
    KV_ASSIGN_OR_RETURN(PlannedUser user, ParsePlannedUser(users[i], i));
    plan.planned_users.push_back(std::move(user));
  }
  KV_ASSIGN_OR_RETURN(plan.requested, IntAt(summary, "sessions_requested", ""));
  KV_ASSIGN_OR_RETURN(plan.dataset_ceiling, IntAt(summary, "dataset_ceiling", ""));
  KV_ASSIGN_OR_RETURN(plan.selection, StringAt(summary, "selection", ""));
  if (summary.contains("dataset_ceiling_under_isl")) {
    KV_ASSIGN_OR_RETURN(plan.dataset_ceiling_under_isl,
                        IntAt(summary, "dataset_ceiling_under_isl", ""));
  }
  return plan;
}

}  // namespace kvbench::agent::results
