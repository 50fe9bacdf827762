// Fuzz target for the job spec reader (ParseJobSpec: json_document, JsonToProto, the validator):
// any bytes in, no crash, no hang, no sanitizer report (1e999 once aborted every reader).
// Invariant: a spec it accepts, printed back as kvbench prints it (ProtoToJson), is accepted
// again and equal: what kvctl shows a user can always be submitted back.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "common/json/proto_json.h"
#include "controller/spec/job_spec_loader.h"
#include "google/protobuf/util/message_differencer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<kvbench::v1::JobSpec> spec = kvbench::spec::ParseJobSpec(text, "fuzz.json");
  if (!spec.ok()) return 0;
  const std::string printed = kvbench::ProtoToJson(*spec);
  absl::StatusOr<kvbench::v1::JobSpec> again = kvbench::spec::ParseJobSpec(printed, "printed");
  if (!again.ok() || !google::protobuf::util::MessageDifferencer::Equals(*spec, *again)) {
    std::fprintf(stderr, "job_spec_fuzz: a printed spec does not read back: %s\n%s\n",
                 printed.c_str(), again.status().ToString().c_str());
    std::abort();
  }
  return 0;
}
