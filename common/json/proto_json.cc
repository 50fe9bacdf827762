#include "common/json/proto_json.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/json/json_document.h"
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
  std::string text =
      absl::StrCat(what, ": ", errors_.size(), errors_.size() == 1 ? " problem" : " problems");
  const size_t shown = std::min(errors_.size(), kMaxErrorsShown);
  for (size_t i = 0; i < shown; ++i) {
    const FieldError& error = errors_[i];
    absl::StrAppend(&text, "\n  ", error.field.empty() ? "(document)" : error.field, ": ",
                    error.message);
  }
  if (shown < errors_.size()) {
    absl::StrAppend(&text, "\n  ... and ", errors_.size() - shown, " more");
  }
  return absl::InvalidArgumentError(text);
}

FieldErrors ParseJsonToProto(absl::string_view text, google::protobuf::Message* message) {
  nlohmann::ordered_json json;
  FieldErrors errors = ParseJsonDocument(text, &json);
  if (!errors.empty()) {
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
