// Fuzz target for the request record reader (a line of requests.jsonl, which kvctl, the agent's
// progress and every figure's recomputation read): any bytes in, no crash. Invariant: a record it
// accepts, written back (ToJsonLine), reads back to the same line.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "agent/runner/request_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view line(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<kvbench::runner::RequestRecord> record = kvbench::runner::ParseJsonLine(line);
  if (!record.ok()) return 0;
  const std::string written = kvbench::runner::ToJsonLine(*record);
  absl::StatusOr<kvbench::runner::RequestRecord> again = kvbench::runner::ParseJsonLine(written);
  if (!again.ok() || kvbench::runner::ToJsonLine(*again) != written) {
    std::fprintf(stderr, "request_record_fuzz: a written record does not read back: %s\n",
                 written.c_str());
    std::abort();
  }
  return 0;
}
