#pragma once

#include "absl/status/statusor.h"
#include "controller/core/job_table.h"
#include "controller/store/store.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::controller {

// The Job a client sees: states, attempts, latest progress and, `with_results`, the stored
// results and the comparison's validity verdicts (read from `store`).
v1::Job ToJobProto(const JobRecord& job, const JobTable& table, Store* store, bool with_results);

// ListJobs over the table: newest first, filtered by state, name prefix and labels; the page
// token is the submission index to continue below. INVALID_ARGUMENT for a negative page size or
// a token ListJobs did not return.
absl::StatusOr<v1::ListJobsResponse> ListJobViews(const JobTable& table, Store* store,
                                                  const v1::ListJobsRequest& request);

}  // namespace kvbench::controller
