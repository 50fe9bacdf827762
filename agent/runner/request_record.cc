#include "agent/runner/request_record.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "nlohmann/json.hpp"

namespace kvbench::runner {
namespace {

using Json = nlohmann::json;

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

// The line is formatted here rather than built as a Json object and dumped (that cost a std::map
// node per key per request on the replay's host), byte for byte as Json::dump wrote it: keys in
// std::map order, numbers by nlohmann's own shortest round-trip formatter, strings escaped by
// Json::dump whenever they hold anything but plain printable ASCII.
namespace {

void AppendKey(const char* key, std::string* out) {
  out->push_back(out->empty() ? '{' : ',');
  out->push_back('"');
  out->append(key);
  out->append("\":");
}

void AppendNumber(double value, std::string* out) {
  if (!std::isfinite(value)) {
    out->append("null");
    return;
  }
  char buffer[64];
  const char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, value);
  out->append(buffer, static_cast<size_t>(end - buffer));
}

void AppendNumber(int value, std::string* out) { absl::StrAppend(out, value); }

void AppendString(const std::string& value, std::string* out) {
  const bool plain = std::all_of(value.begin(), value.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {
    out->push_back('"');
    out->append(value);
    out->push_back('"');
    return;
  }
  // Replace invalid UTF-8 rather than throw: error strings may carry server bytes.
  out->append(Json(value).dump(-1, ' ', false, Json::error_handler_t::replace));
}

template <typename T>
void AppendField(const char* key, const T& value, std::string* out) {
  AppendKey(key, out);
  if constexpr (std::is_same_v<T, std::string>) {
    AppendString(value, out);
  } else {
    AppendNumber(value, out);
  }
}

template <typename T>
void AppendField(const char* key, const std::optional<T>& value, std::string* out) {
  if (value.has_value()) return AppendField(key, *value, out);
  AppendKey(key, out);
  out->append("null");
}

}  // namespace

std::string ToJsonLine(const RequestRecord& record) {
  std::string out;
  out.reserve(320);
  AppendField("attempts", record.attempts, &out);
  AppendField("cached_tokens", record.cached_tokens, &out);
  AppendField("end_s", record.end_s, &out);
  AppendField("error", record.error, &out);
  AppendField("first_token_s", record.first_token_s, &out);
  AppendField("http_status", record.http_status, &out);
  AppendField("loop_lag_s", record.loop_lag_s, &out);
  AppendField("output_tokens", record.output_tokens, &out);
  AppendField("prompt_tokens", record.prompt_tokens, &out);
  AppendField("round", record.round, &out);
  AppendField("scheduled_s", record.scheduled_s, &out);
  AppendField("sent_s", record.sent_s, &out);
  AppendField("session_id", record.session_id, &out);
  AppendField("ttft_s", record.ttft_s, &out);
  AppendField("user_id", record.user_id, &out);
  out.push_back('}');
  return out;
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
  // Optional: records written before the loop-lag probe have no loop_lag_s.
  KV_ASSIGN_OR_RETURN(record.loop_lag_s, GetOptional<double>(object, "loop_lag_s", GetDouble));
  return record;
}

}  // namespace kvbench::runner
