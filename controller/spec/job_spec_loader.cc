#include "controller/spec/job_spec_loader.h"

#include <utility>

#include "common/json/json_document.h"
#include "common/json/validated_json.h"
#include "common/status/status_macros.h"
#include "controller/spec/job_spec_defaults.h"
#include "controller/spec/job_spec_validator.h"
#include "controller/spec/spec_overrides.h"

namespace kvbench::spec {
namespace {

// A spec writes a search where the concurrency list goes, "concurrency": {"search": {...}}; the
// proto holds it apart (JobSpec.concurrency_search), a list being a repeated int32. Anything else
// in that object is an error naming it; a list is left alone.
FieldErrors MoveConcurrencySearch(nlohmann::ordered_json* json) {
  FieldErrors errors;
  if (!json->is_object()) return errors;
  auto concurrency = json->find("concurrency");
  if (concurrency == json->end() || !concurrency->is_object()) return errors;
  nlohmann::ordered_json search;
  for (auto& [key, value] : concurrency->items()) {
    if (key == "search") {
      search = std::move(value);
    } else {
      errors.Add("concurrency." + key,
                 "unknown field: concurrency is a list of values or {\"search\": {...}}");
    }
  }
  json->erase(concurrency);
  if (search.is_null()) {
    errors.Add("concurrency", "an object must hold \"search\": {\"min\": 1, \"max\": 256}");
    return errors;
  }
  if (json->contains("concurrency_search")) {
    errors.Add("concurrency_search", "given twice: as concurrency.search and concurrency_search");
    return errors;
  }
  (*json)["concurrency_search"] = std::move(search);
  return errors;
}

// JSON text → a JobSpec as written: parsed, `sets` applied, the concurrency search moved to its
// field, converted; the conversion's field errors in *errors (validation is the caller's).
absl::StatusOr<v1::JobSpec> ConvertJobSpec(absl::string_view json_text, absl::string_view source,
                                           const std::vector<std::string>& sets,
                                           FieldErrors* errors) {
  nlohmann::ordered_json json;
  KV_RETURN_IF_ERROR(ParseJsonDocument(json_text, &json).ToStatus(source));
  KV_RETURN_IF_ERROR(ApplySpecOverrides(sets, &json));
  *errors = MoveConcurrencySearch(&json);
  v1::JobSpec spec;
  errors->Append(JsonToProto(json, &spec));
  return spec;
}

}  // namespace

absl::StatusOr<v1::JobSpec> ParseJobSpec(absl::string_view json_text, absl::string_view source,
                                         const std::vector<std::string>& sets) {
  FieldErrors conversion;
  KV_ASSIGN_OR_RETURN(v1::JobSpec spec, ConvertJobSpec(json_text, source, sets, &conversion));
  KV_RETURN_IF_ERROR(MergeFieldErrors(conversion, ValidateJobSpec(spec)).ToStatus(source));
  ApplyJobSpecDefaults(&spec);
  return spec;
}

absl::StatusOr<v1::JobSpec> LoadJobSpecFile(const std::string& path,
                                            const std::vector<std::string>& sets) {
  KV_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseJobSpec(text, path, sets);
}

absl::StatusOr<v1::JobSpec> LoadJobSpecFileAsWritten(const std::string& path,
                                                     const std::vector<std::string>& sets) {
  KV_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  FieldErrors conversion;
  KV_ASSIGN_OR_RETURN(v1::JobSpec spec, ConvertJobSpec(text, path, sets, &conversion));
  KV_RETURN_IF_ERROR(conversion.ToStatus(path));
  return spec;
}

absl::StatusOr<v1::JobSpec> NormalizeJobSpec(v1::JobSpec spec, absl::string_view source) {
  KV_RETURN_IF_ERROR(ValidateJobSpec(spec).ToStatus(source));
  ApplyJobSpecDefaults(&spec);
  return spec;
}

}  // namespace kvbench::spec
