#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json/json_document.h"
#include "common/json/proto_json.h"
#include "common/status/status_macros.h"

namespace kvbench {

// What kvbench reads whole at most: a dataset file (the largest text input) of 1 GiB.
inline constexpr int64_t kMaxTextFileBytes = int64_t{1} << 30;
// A job spec or daemon config: 16 MiB is far beyond any real one.
inline constexpr int64_t kMaxDocumentBytes = int64_t{16} << 20;

// OK when `path` is a regular file (symlinks followed) of at most `max_bytes`. NOT_FOUND naming
// it when it does not exist or cannot be read; INVALID_ARGUMENT naming it for "is a directory",
// "is not a regular file (a FIFO)" (a FIFO would block the reader forever, /dev/zero never end)
// or "is N bytes, more than the limit of M".
absl::Status CheckRegularFile(const std::string& path, int64_t max_bytes = kMaxTextFileBytes);

// Reads a whole file after the checks of CheckRegularFile (done on the opened file, so it cannot
// be swapped between check and read).
absl::StatusOr<std::string> ReadTextFile(const std::string& path,
                                         int64_t max_bytes = kMaxTextFileBytes);

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
  // A document that is not JSON kvbench accepts (syntax, a number beyond a double, a duplicate
  // key) is reported alone: its fields were never read, so "is required" would only mislead.
  nlohmann::ordered_json json;
  KV_RETURN_IF_ERROR(ParseJsonDocument(text, &json).ToStatus(source));
  T message;
  FieldErrors conversion = JsonToProto(json, &message);
  if (prepare) prepare(&message);
  KV_RETURN_IF_ERROR(MergeFieldErrors(conversion, validate(message)).ToStatus(source));
  return message;
}

template <typename T>
absl::StatusOr<T> LoadValidatedFile(const std::string& path, FieldErrors (*validate)(const T&),
                                    const std::function<void(T*)>& prepare = nullptr) {
  KV_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, kMaxDocumentBytes));
  return ParseValidated<T>(text, path, validate, prepare);
}

}  // namespace kvbench
