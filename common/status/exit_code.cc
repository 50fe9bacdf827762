#include "common/status/exit_code.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/types/optional.h"

namespace kvbench {
namespace {

constexpr char kExitCodePayload[] = "kvbench.dev/exit-code";

}  // namespace

absl::Status WithExitCode(absl::Status status, int exit_code) {
  status.SetPayload(kExitCodePayload, absl::Cord(std::to_string(exit_code)));
  return status;
}

int ExitCodeForStatus(const absl::Status& status) {
  if (absl::optional<absl::Cord> marked = status.GetPayload(kExitCodePayload)) {
    int code = 0;
    if (absl::SimpleAtoi(std::string(*marked), &code)) return code;
  }
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return kExitInvalidArgument;
    case absl::StatusCode::kNotFound:
      return 3;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted:
      return 4;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 5;
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kPermissionDenied:
      return 6;
    case absl::StatusCode::kCancelled:
      return 7;
    default:
      return kExitFailure;
  }
}

}  // namespace kvbench
