#include "agent/runner/request_record.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "nlohmann/json.hpp"

namespace kvbench::runner {
namespace {

using Json = nlohmann::json;

template <typename T>
Json OptionalToJson(const std::optional<T>& value) {
  return value.has_value() ? Json(*value) : Json(nullptr);
}

absl::Status KeyError(const std::string& key, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("request record: key \"", key, "\" ", what));
}

// Looks up `key`; INVALID_ARGUMENT naming it when missing.
absl::StatusOr<const Json*> Find(const Json& object, const std::string& key) {
  auto it = object.find(key);
  if (it == object.end()) return KeyError(key, "is missing");
  return &*it;
}

absl::StatusOr<double> GetDouble(const Json& object, const std::string& key) {
  auto found = Find(object, key);
  if (!found.ok()) return found.status();
  if (!(*found)->is_number()) return KeyError(key, "must be a number");
  return (*found)->get<double>();
}

absl::StatusOr<int> GetInt(const Json& object, const std::string& key) {
  auto found = Find(object, key);
  if (!found.ok()) return found.status();
  const Json& value = **found;
  if (!value.is_number_integer()) return KeyError(key, "must be an integer");
  const std::int64_t wide = value.get<std::int64_t>();
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max()) {
    return KeyError(key, "is out of range");
  }
  return static_cast<int>(wide);
}

absl::StatusOr<std::string> GetString(const Json& object, const std::string& key) {
  auto found = Find(object, key);
  if (!found.ok()) return found.status();
  if (!(*found)->is_string()) return KeyError(key, "must be a string");
  return (*found)->get<std::string>();
}

// Optional keys: absent or null reads as unset.
template <typename T, typename Getter>
absl::StatusOr<std::optional<T>> GetOptional(const Json& object, const std::string& key,
                                             Getter getter) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<T>();
  auto value = getter(object, key);
  if (!value.ok()) return value.status();
  return std::optional<T>(*std::move(value));
}

}  // namespace

std::string ToJsonLine(const RequestRecord& record) {
  Json out = Json::object();
  out["user_id"] = record.user_id;
  out["session_id"] = record.session_id;
  out["round"] = record.round;
  out["scheduled_s"] = record.scheduled_s;
  out["sent_s"] = record.sent_s;
  out["first_token_s"] = OptionalToJson(record.first_token_s);
  out["end_s"] = record.end_s;
  out["ttft_s"] = OptionalToJson(record.ttft_s);
  out["prompt_tokens"] = record.prompt_tokens;
  out["output_tokens"] = record.output_tokens;
  out["cached_tokens"] = OptionalToJson(record.cached_tokens);
  out["http_status"] = record.http_status;
  out["error"] = OptionalToJson(record.error);
  out["attempts"] = record.attempts;
  out["loop_lag_s"] = OptionalToJson(record.loop_lag_s);
  // Replace invalid UTF-8 rather than throw: error strings may carry server bytes.
  return out.dump(-1, ' ', false, Json::error_handler_t::replace);
}

absl::StatusOr<RequestRecord> ParseJsonLine(absl::string_view line) {
  const Json object = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded()) {
    return absl::InvalidArgumentError("request record: not valid JSON");
  }
  if (!object.is_object()) {
    return absl::InvalidArgumentError("request record: not a JSON object");
  }
  RequestRecord record;
  KV_ASSIGN_OR_RETURN(record.user_id, GetString(object, "user_id"));
  KV_ASSIGN_OR_RETURN(record.session_id, GetString(object, "session_id"));
  KV_ASSIGN_OR_RETURN(record.round, GetInt(object, "round"));
  KV_ASSIGN_OR_RETURN(record.scheduled_s, GetDouble(object, "scheduled_s"));
  KV_ASSIGN_OR_RETURN(record.sent_s, GetDouble(object, "sent_s"));
  KV_ASSIGN_OR_RETURN(record.first_token_s,
                      GetOptional<double>(object, "first_token_s", GetDouble));
  KV_ASSIGN_OR_RETURN(record.end_s, GetDouble(object, "end_s"));
  KV_ASSIGN_OR_RETURN(record.ttft_s, GetOptional<double>(object, "ttft_s", GetDouble));
  KV_ASSIGN_OR_RETURN(record.prompt_tokens, GetInt(object, "prompt_tokens"));
  KV_ASSIGN_OR_RETURN(record.output_tokens, GetInt(object, "output_tokens"));
  KV_ASSIGN_OR_RETURN(record.cached_tokens, GetOptional<int>(object, "cached_tokens", GetInt));
  KV_ASSIGN_OR_RETURN(record.http_status, GetInt(object, "http_status"));
  KV_ASSIGN_OR_RETURN(record.error, GetOptional<std::string>(object, "error", GetString));
  // Optional: records written before --agentic-max-attempts existed have no attempts key.
  KV_ASSIGN_OR_RETURN(std::optional<int> attempts, GetOptional<int>(object, "attempts", GetInt));
  record.attempts = attempts.value_or(1);
  // Optional: records written before the loop-lag probe (issue #30) have no loop_lag_s.
  KV_ASSIGN_OR_RETURN(record.loop_lag_s, GetOptional<double>(object, "loop_lag_s", GetDouble));
  return record;
}

}  // namespace kvbench::runner
