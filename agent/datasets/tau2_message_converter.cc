#include "agent/datasets/tau2_message_converter.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "agent/datasets/json_input.h"
#include "agent/datasets/python_json.h"

namespace kvbench::datasets {
namespace {

using OrderedJson = nlohmann::ordered_json;

absl::StatusOr<std::string> StringField(const OrderedJson& object, const char* field,
                                        absl::string_view origin) {
  auto it = object.find(field);
  if (it == object.end()) return FieldError(origin, field, "missing");
  if (!it->is_string()) return FieldError(origin, field, "expected a string");
  return it->get<std::string>();
}

absl::StatusOr<nlohmann::json> ConvertToolCalls(const OrderedJson& calls,
                                                std::map<std::string, std::string>& tool_names,
                                                absl::string_view origin) {
  if (!calls.is_array()) return FieldError(origin, "tool_calls", "expected a list or null");
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < calls.size(); ++i) {
    const OrderedJson& call = calls[i];
    const std::string where = absl::StrCat(origin, " tool_calls[", i, "]");
    if (!call.is_object()) return FieldError(where, "tool_calls", "expected an object");
    absl::StatusOr<std::string> id = StringField(call, "id", where);
    if (!id.ok()) return id.status();
    absl::StatusOr<std::string> name = StringField(call, "name", where);
    if (!name.ok()) return name.status();
    auto arguments = call.find("arguments");
    if (arguments == call.end() || !arguments->is_object()) {
      return FieldError(where, "arguments", "expected a JSON object");
    }
    tool_names[*id] = *name;
    out.push_back({{"id", *id},
                   {"type", "function"},
                   {"function", {{"name", *name}, {"arguments", PythonJsonDumps(*arguments)}}}});
  }
  return out;
}

nlohmann::json ContentOf(const OrderedJson& message) {
  auto it = message.find("content");
  if (it == message.end() || it->is_null()) return nullptr;
  return it->get<std::string>();
}

}  // namespace

std::string StringOr(const OrderedJson& object, const char* field, const std::string& fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string Tau2SystemPrompt(const std::string& policy) {
  return absl::StrCat("<instructions>\n", kTau2AgentInstruction, "\n</instructions>\n<policy>\n",
                      policy, "\n</policy>");
}

bool Tau2AgentSeesMessage(const OrderedJson& message) {
  const std::string role = StringOr(message, "role", "");
  auto calls = message.find("tool_calls");
  const bool has_calls = calls != message.end() && calls->is_array() && !calls->empty();
  if (role == "user") return !has_calls;
  if (role == "tool") return StringOr(message, "requestor", "assistant") == "assistant";
  return true;
}

absl::StatusOr<nlohmann::json> ConvertTau2Message(const OrderedJson& message,
                                                  std::map<std::string, std::string>& tool_names,
                                                  absl::string_view origin) {
  if (!message.is_object()) return FieldError(origin, "messages", "expected a message object");
  absl::StatusOr<std::string> role = StringField(message, "role", origin);
  if (!role.ok()) return role.status();
  auto content = message.find("content");
  if (content != message.end() && !content->is_null() && !content->is_string()) {
    return FieldError(origin, "content", "expected a string or null");
  }
  if (*role == "tool") {
    absl::StatusOr<std::string> id = StringField(message, "id", origin);
    if (!id.ok()) return id.status();
    auto name = tool_names.find(*id);
    if (name == tool_names.end()) {
      return FieldError(origin, "id", absl::StrCat("no earlier tool call has id \"", *id, "\""));
    }
    return nlohmann::json{{"role", "tool"},
                          {"tool_call_id", *id},
                          {"name", name->second},
                          {"content", ContentOf(message)}};
  }
  if (*role != "assistant" && *role != "user" && *role != "system") {
    return FieldError(origin, "role", absl::StrCat("unknown role \"", *role, "\""));
  }
  nlohmann::json out = {{"role", *role}, {"content", ContentOf(message)}};
  auto calls = message.find("tool_calls");
  if (calls != message.end() && !calls->is_null()) {
    absl::StatusOr<nlohmann::json> converted = ConvertToolCalls(*calls, tool_names, origin);
    if (!converted.ok()) return converted.status();
    if (!converted->empty()) out["tool_calls"] = *std::move(converted);
  }
  return out;
}

absl::StatusOr<double> ParseTau2Timestamp(const OrderedJson& message, absl::string_view origin) {
  absl::StatusOr<std::string> text = StringField(message, "timestamp", origin);
  if (!text.ok()) return text.status();
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
  if (std::sscanf(text->c_str(), "%4d-%2d-%2dT%2d:%2d:%lf", &year, &month, &day, &hour, &minute,
                  &second) != 6 ||
      month < 1 || month > 12 || day < 1 || day > 31) {
    return FieldError(origin, "timestamp", "expected YYYY-MM-DDTHH:MM:SS[.ffffff]");
  }
  // Days from civil (Howard Hinnant's algorithm).
  const int y = year - (month <= 2 ? 1 : 0);
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const double days = static_cast<double>(era) * 146097 + doe - 719468;
  return days * 86400 + hour * 3600 + minute * 60 + second;
}

}  // namespace kvbench::datasets
