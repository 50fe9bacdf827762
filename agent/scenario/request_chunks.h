#pragma once

// A scenario's per-request records (requests.jsonl) as the controller keeps them:
// RequestRecords chunks of bounded size, each sent as an event before the scenario's result, so
// every request of every run can be exported from the controller without the agent's disk.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/runner/request_record.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::agent {

// Rows per chunk: ~100-150 bytes each serialized, so a chunk stays near 250 KB, far below gRPC's
// 4 MB message limit and cheap to spool and resend.
inline constexpr int kRequestRowsPerChunk = 2000;

// Every record of a requests.jsonl file, in file order. INVALID_ARGUMENT naming the file and
// line of a record that does not parse; NOT_FOUND when it cannot be read.
absl::StatusOr<std::vector<runner::RequestRecord>> ReadRequestRecords(const std::string& path);

v1::RequestRow ToRequestRow(const runner::RequestRecord& record);

// The records in chunks of at most `rows_per_chunk` (> 0), first_index and total set; one empty
// chunk (total 0) when there are none, so the controller knows the scenario had no requests.
std::vector<v1::RequestRecords> ChunkRequestRecords(
    const std::vector<runner::RequestRecord>& records, int rows_per_chunk = kRequestRowsPerChunk);

}  // namespace kvbench::agent
