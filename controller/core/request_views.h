#pragma once

#include "absl/status/statusor.h"
#include "controller/core/job_table.h"
#include "controller/store/store.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::controller {

// Rows per ListRequests page unless asked otherwise, and at most.
inline constexpr int kDefaultRequestPageRows = 10000;
inline constexpr int kMaxRequestPageRows = 100000;

// A page of a job's request records: its scenarios in order (or the one asked for),
// each with the rows its current attempt sent, whole chunks until the page holds at least
// page_size rows. The page token is "<scenario position>:<last first_index>". NOT_FOUND for an
// unknown job or scenario, INVALID_ARGUMENT for a token this did not write.
absl::StatusOr<v1::ListRequestsResponse> ListRequestViews(const JobTable& table, Store* store,
                                                          const v1::ListRequestsRequest& request);

}  // namespace kvbench::controller
