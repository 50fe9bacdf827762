#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kvbench::controller {

// Copies an answer into a call's response; its status finishes the call.
template <typename Response>
absl::Status FillResponse(Response* response, absl::StatusOr<Response> answer) {
  if (answer.ok()) *response = *std::move(answer);
  return answer.status();
}

}  // namespace kvbench::controller
