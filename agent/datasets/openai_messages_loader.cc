#include "agent/datasets/openai_messages_loader.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/datasets/json_input.h"
#include "common/status/status_macros.h"

namespace kvbench::datasets {

std::vector<Round> RoundsOfConversation(const nlohmann::json& messages, const std::string& origin) {
  std::vector<Round> rounds;
  for (size_t i = 1; i < messages.size(); ++i) {
    if (messages[i].value("role", "") != "assistant") continue;
    Round round;
    round.messages = nlohmann::json(messages.begin(), messages.begin() + static_cast<long>(i));
    round.origin = absl::StrCat(origin, "/", i);
    rounds.push_back(std::move(round));
  }
  return rounds;
}

absl::StatusOr<Dataset> LoadOpenAiMessages(const std::string& path) {
  Dataset dataset;
  dataset.code = "openai-messages";
  const absl::Status read = ForEachJsonLine(path, [&](int line, const nlohmann::json& row) {
    const std::string origin = LineOrigin(path, line);
    KV_RETURN_IF_ERROR(CheckMessageList(row, "messages", origin));
    Session session;
    KV_ASSIGN_OR_RETURN(session.id, OptionalString(row, "id", origin, absl::StrCat("line", line)));
    KV_ASSIGN_OR_RETURN(session.model, OptionalString(row, "model", origin, ""));
    session.rounds = RoundsOfConversation(row.at("messages"), origin);
    if (session.rounds.empty()) {
      return FieldError(origin, "messages",
                        "expected an assistant message after at least one other message (an "
                        "empty session)");
    }
    dataset.sessions.push_back(std::move(session));
    return absl::OkStatus();
  });
  if (!read.ok()) return read;
  if (dataset.sessions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no conversations: an empty dataset"));
  }
  return dataset;
}

}  // namespace kvbench::datasets
