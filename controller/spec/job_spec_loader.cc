#include "controller/spec/job_spec_loader.h"

#include "common/json/validated_json.h"
#include "common/status/status_macros.h"
#include "controller/spec/job_spec_defaults.h"
#include "controller/spec/job_spec_validator.h"

namespace kvbench::spec {

absl::StatusOr<v1::JobSpec> ParseJobSpec(absl::string_view json_text, absl::string_view source) {
  KV_ASSIGN_OR_RETURN(v1::JobSpec spec,
                      ParseValidated<v1::JobSpec>(json_text, source, &ValidateJobSpec));
  ApplyJobSpecDefaults(&spec);
  return spec;
}

absl::StatusOr<v1::JobSpec> LoadJobSpecFile(const std::string& path) {
  KV_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseJobSpec(text, path);
}

absl::StatusOr<v1::JobSpec> NormalizeJobSpec(v1::JobSpec spec, absl::string_view source) {
  KV_RETURN_IF_ERROR(ValidateJobSpec(spec).ToStatus(source));
  ApplyJobSpecDefaults(&spec);
  return spec;
}

}  // namespace kvbench::spec
