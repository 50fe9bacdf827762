#pragma once

// Reading JSON input files for the dataset loaders: whole files, JSON Lines with file:line
// origins, and the INVALID_ARGUMENT errors every loader reports ("<origin>: field \"x\": ...").
// nlohmann exceptions are caught here, at the edge; nothing past this file throws.

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::datasets {


// Parses a whole-file JSON document (nlohmann::json or nlohmann::ordered_json); a syntax error is
// INVALID_ARGUMENT "<path>:<line>: invalid JSON: ...".
absl::StatusOr<nlohmann::json> ParseJsonFile(const std::string& path);
absl::StatusOr<nlohmann::ordered_json> ParseOrderedJsonFile(const std::string& path);

// Calls `visit(line_number, value)` for each non-blank line of a JSON Lines file, in order
// (lines numbered from 1). A line that is not valid JSON is INVALID_ARGUMENT naming file:line;
// the first non-OK status returned by `visit` stops the walk and is returned.
absl::Status ForEachJsonLine(const std::string& path,
                             const std::function<absl::Status(int, const nlohmann::json&)>& visit);

// "<path>:<line>".
std::string LineOrigin(const std::string& path, int line);

// INVALID_ARGUMENT "<origin>: field \"<field>\": <problem>".
absl::Status FieldError(absl::string_view origin, absl::string_view field,
                        absl::string_view problem);

// Typed field access on a JSON object; a missing field or a wrong type is a FieldError.
absl::StatusOr<std::string> RequireString(const nlohmann::json& object, const char* field,
                                          absl::string_view origin);
absl::StatusOr<double> RequireNumber(const nlohmann::json& object, const char* field,
                                     absl::string_view origin);
absl::StatusOr<int64_t> RequireInteger(const nlohmann::json& object, const char* field,
                                       absl::string_view origin);
// As above, but a missing or null field gives `fallback`.
absl::StatusOr<std::string> OptionalString(const nlohmann::json& object, const char* field,
                                           absl::string_view origin, const std::string& fallback);
absl::StatusOr<double> OptionalNumber(const nlohmann::json& object, const char* field,
                                      absl::string_view origin, double fallback);

// Checks that object[field] is a non-empty list of OpenAI chat messages (objects whose "role" is
// system, user, assistant or tool), naming the message index on failure.
absl::Status CheckMessageList(const nlohmann::json& object, const char* field,
                              absl::string_view origin);

}  // namespace kvbench::datasets
