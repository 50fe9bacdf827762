#include "absl/strings/str_cat.h"
#include "common/json/proto_json.h"
#include "common/json/validated_json.h"
#include "common/status/status_macros.h"
#include "google/protobuf/util/json_util.h"

namespace kvbench {

void FieldErrors::Add(std::string field, std::string message) {
  errors_.push_back(FieldError{std::move(field), std::move(message)});
}

void FieldErrors::Append(const FieldErrors& other) {
  errors_.insert(errors_.end(), other.errors_.begin(), other.errors_.end());
}

absl::Status FieldErrors::ToStatus(absl::string_view what) const {
  if (errors_.empty()) return absl::OkStatus();
  std::string text = absl::StrCat(what, ": ", errors_.size(),
                                  errors_.size() == 1 ? " problem" : " problems");
  for (const FieldError& error : errors_) {
    absl::StrAppend(&text, "\n  ", error.field.empty() ? "(document)" : error.field, ": ",
                    error.message);
  }
  return absl::InvalidArgumentError(text);
}

FieldErrors ParseJsonToProto(absl::string_view text, google::protobuf::Message* message) {
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(
      text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    // Re-parse with exceptions (caught here, at the edge) only to learn where and why it broke.
    FieldErrors errors;
    try {
      nlohmann::ordered_json unused = nlohmann::ordered_json::parse(text.begin(), text.end());
      (void)unused;
    } catch (const nlohmann::json::parse_error& error) {
      // what() is "[json.exception.parse_error.101] parse error at line 3, column 5: ...".
      absl::string_view what = error.what();
      size_t bracket = what.find("] ");
      if (bracket != absl::string_view::npos) what.remove_prefix(bracket + 2);
      errors.Add("", absl::StrCat("invalid JSON: ", what));
    }
    if (errors.empty()) errors.Add("", "invalid JSON");
    message->Clear();
    return errors;
  }
  return JsonToProto(json, message);
}

absl::Status LoadProtoFromJsonFile(const std::string& path, google::protobuf::Message* message) {
  KV_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseJsonToProto(text, message).ToStatus(path);
}

std::string ProtoToJson(const google::protobuf::Message& message, bool pretty) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.add_whitespace = pretty;
  std::string out;
  auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
  // Fails only for messages that cannot be printed at all (an Any of an unknown type).
  if (!status.ok()) return nlohmann::json{{"error", std::string(status.message())}}.dump();
  return out;
}

}  // namespace kvbench
