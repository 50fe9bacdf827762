#pragma once

// `kvctl results JOB --requests`: every request of a job as the agents recorded them, read from
// the controller alone, one row per request with its scenario and agent, as JSON lines
// (the keys of requests.jsonl after scenario_id and agent_id) or CSV with a header.

#include <ostream>

#include "absl/status/status.h"
#include "controller/client/controller_client.h"
#include "controller/kvctl/print/output_format.h"

namespace kvbench::kvctl {

// Pages through ListRequests (kJsonl or kCsv); returns how many rows it wrote in *rows.
absl::Status ExportRequests(client::ControllerClient& client, const std::string& job_id,
                            OutputFormat format, std::ostream& out, int64_t* rows);

}  // namespace kvbench::kvctl
