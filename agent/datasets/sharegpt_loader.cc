#include "agent/datasets/sharegpt_loader.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/datasets/json_input.h"
#include "agent/datasets/openai_messages_loader.h"
#include "common/status/status_macros.h"

namespace kvbench::datasets {
namespace {

absl::StatusOr<std::string> RoleOf(const std::string& from, absl::string_view origin) {
  if (from == "human" || from == "user") return std::string("user");
  if (from == "gpt" || from == "assistant") return std::string("assistant");
  if (from == "system") return std::string("system");
  return FieldError(origin, "from",
                    absl::StrCat("unknown speaker \"", from, "\" (expected human, gpt or system)"));
}

absl::StatusOr<nlohmann::json> ToMessages(const nlohmann::json& turns, const std::string& origin) {
  nlohmann::json messages = nlohmann::json::array();
  for (size_t t = 0; t < turns.size(); ++t) {
    const std::string where = absl::StrCat(origin, "/", t);
    KV_ASSIGN_OR_RETURN(std::string from, RequireString(turns[t], "from", where));
    KV_ASSIGN_OR_RETURN(std::string role, RoleOf(from, where));
    KV_ASSIGN_OR_RETURN(std::string value, RequireString(turns[t], "value", where));
    messages.push_back({{"role", role}, {"content", value}});
  }
  return messages;
}

}  // namespace

absl::StatusOr<Dataset> LoadShareGpt(const std::string& path) {
  KV_ASSIGN_OR_RETURN(nlohmann::json root, ParseJsonFile(path));
  if (!root.is_array()) return FieldError(path, "(root)", "expected a list of conversations");
  Dataset dataset;
  dataset.code = "sharegpt";
  for (size_t i = 0; i < root.size(); ++i) {
    const std::string origin = absl::StrCat(path, "#", i);
    const nlohmann::json& conversation = root[i];
    if (!conversation.is_object()) return FieldError(origin, "(conversation)", "expected an object");
    auto turns = conversation.find("conversations");
    if (turns == conversation.end() || !turns->is_array()) {
      return FieldError(origin, "conversations", "expected a list of turns");
    }
    Session session;
    KV_ASSIGN_OR_RETURN(session.id, OptionalString(conversation, "id", origin, absl::StrCat(i)));
    KV_ASSIGN_OR_RETURN(nlohmann::json messages, ToMessages(*turns, origin));
    session.rounds = RoundsOfConversation(messages, origin);
    if (session.rounds.empty()) {
      ++dataset.skipped_sessions;
      dataset.skip_reasons.push_back(
          absl::StrCat(origin, ": no gpt turn after another turn (nothing to replay)"));
      continue;
    }
    dataset.sessions.push_back(std::move(session));
  }
  if (dataset.sessions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no conversation with a gpt turn"));
  }
  return dataset;
}

}  // namespace kvbench::datasets
