#pragma once

// absl::Status <-> grpc::Status at the edge (STYLE.md rule 12: canonical codes mapped 1:1).

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace kvbench {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace kvbench
