#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace kvbench {

// One problem with one field of an input document. `field` is a path people can find in their
// file: "concurrency[1]", "dataset.code", "labels.team", or "" for the document as a whole.
struct FieldError {
  std::string field;
  std::string message;
};

// Every problem of a document, in document order; never just the first.
class FieldErrors {
 public:
  void Add(std::string field, std::string message);
  void Append(const FieldErrors& other);
  bool empty() const { return errors_.empty(); }
  size_t size() const { return errors_.size(); }
  const std::vector<FieldError>& errors() const { return errors_; }
  // INVALID_ARGUMENT whose message lists the errors, one per line, prefixed by `what`
  // ("job spec demo.json: 3 problems"): the first kMaxErrorsShown, then "... and N more" (a
  // 50 MB bad spec would print all 51,819 problems); OK when empty.
  absl::Status ToStatus(absl::string_view what) const;
  static constexpr size_t kMaxErrorsShown = 20;

 private:
  std::vector<FieldError> errors_;
};

// Converts JSON to a protobuf message through reflection, collecting every problem instead of
// stopping at the first: unknown fields (rejected, STYLE.md rule 17), wrong JSON types, numbers out
// of range, enum values not spelled one of the accepted ways: the value's name as kvbench prints
// it (OFFLOAD_ROUTING_STICKY, SIM), without its enum's prefix (STICKY), and for an enum documented
// in lowercase (Engine) that lowercase ("sim"); "gpu", "Sticky" or a number are errors.
// Errors come in document order (hence ordered_json).
// Accepts what ProtoToJson writes (64-bit integers as strings, proto field names or their
// lowerCamelCase JSON names). `message` is cleared first.
FieldErrors JsonToProto(const nlohmann::ordered_json& json, google::protobuf::Message* message);

// Parses `text` with ParseJsonDocument (syntax errors with line and column, numbers out of a
// double's range, duplicate keys: all errors, never exceptions), then JsonToProto.
FieldErrors ParseJsonToProto(absl::string_view text, google::protobuf::Message* message);

// Reads and parses a JSON file. NOT_FOUND if it cannot be read; INVALID_ARGUMENT listing every
// field error, prefixed with the path.
absl::Status LoadProtoFromJsonFile(const std::string& path, google::protobuf::Message* message);

// JSON with proto field names (snake_case), enums by name, unset optional fields omitted.
std::string ProtoToJson(const google::protobuf::Message& message, bool pretty = false);

}  // namespace kvbench
