#include "agent/datasets/sammshen_loader.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/datasets/json_input.h"
#include "agent/datasets/parquet_rows.h"
#include "common/status/status_macros.h"

namespace kvbench::datasets {
namespace {

struct SessionLines {
  size_t index = 0;
  int first_line = 0;
  int last_line = 0;
};

absl::StatusOr<Round> ParseRow(const nlohmann::json& row, const std::string& origin) {
  Round round;
  KV_RETURN_IF_ERROR(CheckMessageList(row, "input", origin));
  round.messages = row.at("input");
  KV_ASSIGN_OR_RETURN(int64_t output_length, RequireInteger(row, "output_length", origin));
  if (output_length < 0) return FieldError(origin, "output_length", "must not be negative");
  round.output_tokens = static_cast<int>(output_length);
  KV_ASSIGN_OR_RETURN(round.pre_gap_s, OptionalNumber(row, "pre_gap", origin, 0.0));
  if (round.pre_gap_s < 0) return FieldError(origin, "pre_gap", "must not be negative");
  round.origin = origin;
  return round;
}

// A Parquet struct has every field, null (or an empty list) where a message has none; the JSON
// rows omit them. Drop those, except a message's "content" (an assistant turn that only calls
// tools has content null in OpenAI's shape, and the JSON rows say so). An empty tool_calls list
// goes too: OpenAI refuses `"tool_calls": []`.
void DropNullFields(nlohmann::json& value, bool is_message) {
  if (value.is_array()) {
    for (nlohmann::json& item : value) DropNullFields(item, is_message);
    return;
  }
  if (!value.is_object()) return;
  for (auto it = value.begin(); it != value.end();) {
    const bool empty_list = it->is_array() && it->empty() && it.key() == "tool_calls";
    if ((it->is_null() && !(is_message && it.key() == "content")) || empty_list) {
      it = value.erase(it);
    } else {
      DropNullFields(*it, /*is_message=*/false);
      ++it;
    }
  }
}

}  // namespace

absl::StatusOr<Dataset> LoadSammshen(const std::string& path) {
  Dataset dataset;
  dataset.code = "sammshen";
  std::map<std::string, SessionLines> seen;
  int row_number = 0;
  auto add_row = [&](const std::string& origin, int line,
                     const nlohmann::json& row) -> absl::Status {
    KV_ASSIGN_OR_RETURN(std::string session_id, RequireString(row, "session_id", origin));
    if (session_id.empty()) return FieldError(origin, "session_id", "must not be empty");
    KV_ASSIGN_OR_RETURN(std::string model, OptionalString(row, "model", origin, ""));
    KV_ASSIGN_OR_RETURN(Round round, ParseRow(row, origin));
    auto it = seen.find(session_id);
    if (it == seen.end()) {
      seen[session_id] = SessionLines{dataset.sessions.size(), line, line};
      dataset.sessions.push_back(Session{session_id, model, {}, ""});
    } else if (it->second.index + 1 != dataset.sessions.size()) {
      return FieldError(
          origin, "session_id",
          absl::StrCat("session \"", session_id, "\" reappears after other sessions",
                       " (its rows were at lines ", it->second.first_line, "-",
                       it->second.last_line, "): a session's rows must be contiguous"));
    } else {
      it->second.last_line = line;
    }
    dataset.sessions.back().rounds.push_back(std::move(round));
    return absl::OkStatus();
  };
  const absl::Status read =
      IsParquetInput(path)
          ? ForEachParquetRow(path,
                              [&](const std::string& origin, const nlohmann::json& row) {
                                nlohmann::json normalized = row;
                                if (normalized.contains("input")) {
                                  DropNullFields(normalized["input"], /*is_message=*/true);
                                }
                                return add_row(origin, ++row_number, normalized);
                              })
          : ForEachJsonLine(path, [&](int line, const nlohmann::json& row) {
              return add_row(LineOrigin(path, line), line, row);
            });
  if (!read.ok()) return read;
  if (dataset.sessions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no rows: an empty dataset"));
  }
  return dataset;
}

}  // namespace kvbench::datasets
