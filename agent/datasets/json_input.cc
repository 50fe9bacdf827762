#include "agent/datasets/json_input.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/json/validated_json.h"

namespace kvbench::datasets {
namespace {

int LineOfByte(const std::string& text, size_t byte) {
  const size_t end = std::min(byte, text.size());
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(end), '\n'));
}

template <typename Json>
absl::StatusOr<Json> ParseText(const std::string& text, const std::string& path, int line) {
  try {
    return Json::parse(text);
  } catch (const typename Json::parse_error& e) {
    const int at = line > 0 ? line : LineOfByte(text, e.byte == 0 ? 0 : e.byte - 1);
    return absl::InvalidArgumentError(
        absl::StrCat(LineOrigin(path, at), ": invalid JSON: ", e.what()));
  } catch (const typename Json::exception& e) {
    // A number beyond a double's range (out_of_range.406, "number overflow parsing '1e999'"):
    // nlohmann gives no position for it, and uncaught it would abort the reader.
    return absl::InvalidArgumentError(
        absl::StrCat(line > 0 ? LineOrigin(path, line) : path, ": invalid JSON: ", e.what()));
  }
}

template <typename Json>
absl::StatusOr<Json> ParseFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseText<Json>(*text, path, 0);
}

bool IsBlank(const std::string& line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

bool IsKnownRole(const std::string& role) {
  return role == "system" || role == "user" || role == "assistant" || role == "tool";
}

}  // namespace

absl::StatusOr<nlohmann::json> ParseJsonFile(const std::string& path) {
  return ParseFile<nlohmann::json>(path);
}

absl::StatusOr<nlohmann::ordered_json> ParseOrderedJsonFile(const std::string& path) {
  return ParseFile<nlohmann::ordered_json>(path);
}

absl::Status ForEachJsonLine(const std::string& path,
                             const std::function<absl::Status(int, const nlohmann::json&)>& visit) {
  if (absl::Status file = CheckRegularFile(path); !file.ok()) return file;
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (IsBlank(line)) continue;  // blank lines (e.g. a trailing newline) carry no record
    absl::StatusOr<nlohmann::json> value = ParseText<nlohmann::json>(line, path, number);
    if (!value.ok()) return value.status();
    absl::Status status = visit(number, *value);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

std::string LineOrigin(const std::string& path, int line) { return absl::StrCat(path, ":", line); }

absl::Status FieldError(absl::string_view origin, absl::string_view field,
                        absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(origin, ": field \"", field, "\": ", problem));
}

absl::StatusOr<std::string> RequireString(const nlohmann::json& object, const char* field,
                                          absl::string_view origin) {
  if (!object.is_object()) return FieldError(origin, field, "the record is not a JSON object");
  auto it = object.find(field);
  if (it == object.end()) return FieldError(origin, field, "missing");
  if (!it->is_string()) return FieldError(origin, field, "expected a string");
  return it->get<std::string>();
}

absl::StatusOr<double> RequireNumber(const nlohmann::json& object, const char* field,
                                     absl::string_view origin) {
  if (!object.is_object()) return FieldError(origin, field, "the record is not a JSON object");
  auto it = object.find(field);
  if (it == object.end()) return FieldError(origin, field, "missing");
  if (!it->is_number()) return FieldError(origin, field, "expected a number");
  return it->get<double>();
}

absl::StatusOr<int64_t> RequireInteger(const nlohmann::json& object, const char* field,
                                       absl::string_view origin) {
  if (!object.is_object()) return FieldError(origin, field, "the record is not a JSON object");
  auto it = object.find(field);
  if (it == object.end()) return FieldError(origin, field, "missing");
  if (!it->is_number_integer()) return FieldError(origin, field, "expected an integer");
  return it->get<int64_t>();
}

absl::StatusOr<std::string> OptionalString(const nlohmann::json& object, const char* field,
                                           absl::string_view origin, const std::string& fallback) {
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) return fallback;
  return RequireString(object, field, origin);
}

absl::StatusOr<double> OptionalNumber(const nlohmann::json& object, const char* field,
                                      absl::string_view origin, double fallback) {
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) return fallback;
  return RequireNumber(object, field, origin);
}

absl::Status CheckMessageList(const nlohmann::json& object, const char* field,
                              absl::string_view origin) {
  auto it = object.find(field);
  if (it == object.end()) return FieldError(origin, field, "missing");
  if (!it->is_array() || it->empty()) {
    return FieldError(origin, field, "expected a non-empty list of messages");
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& message = (*it)[i];
    const std::string where = absl::StrCat(field, "[", i, "].role");
    if (!message.is_object()) {
      return FieldError(origin, absl::StrCat(field, "[", i, "]"), "expected a message object");
    }
    auto role = message.find("role");
    if (role == message.end() || !role->is_string()) {
      return FieldError(origin, where, "expected a string");
    }
    if (!IsKnownRole(role->get<std::string>())) {
      return FieldError(origin, where,
                        absl::StrCat("unknown role \"", role->get<std::string>(),
                                     "\" (expected system, user, assistant or tool)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace kvbench::datasets
