#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json/proto_json.h"
#include "common/status/status_macros.h"

namespace kvbench {

// Reads a whole file. NOT_FOUND naming the path when it cannot be read.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

// Conversion errors plus the semantic ones that are not mere echoes of them: a validator that
// sees a field the converter had to drop ("concurrency": "x") would only repeat the problem.
FieldErrors MergeFieldErrors(const FieldErrors& conversion, const FieldErrors& semantic);

// JSON text → message of type T, checked by `validate`: one INVALID_ARGUMENT headed by `source`
// lists every problem (syntax, unknown fields, types, enum names, then the validator's).
// `prepare`, when given, completes the message between conversion and validation (e.g. resolves
// relative paths against the file's folder).
template <typename T>
absl::StatusOr<T> ParseValidated(absl::string_view text, absl::string_view source,
                                 FieldErrors (*validate)(const T&),
                                 const std::function<void(T*)>& prepare = nullptr) {
  T message;
  FieldErrors conversion = ParseJsonToProto(text, &message);
  const bool syntax_error = !conversion.empty() && conversion.errors().front().field.empty();
  if (syntax_error) return conversion.ToStatus(source);
  if (prepare) prepare(&message);
  KV_RETURN_IF_ERROR(MergeFieldErrors(conversion, validate(message)).ToStatus(source));
  return message;
}

template <typename T>
absl::StatusOr<T> LoadValidatedFile(const std::string& path, FieldErrors (*validate)(const T&),
                                    const std::function<void(T*)>& prepare = nullptr) {
  KV_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseValidated<T>(text, path, validate, prepare);
}

}  // namespace kvbench
