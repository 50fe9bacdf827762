#pragma once

// A scenario's per-request records (requests.jsonl) as the controller keeps them:
// RequestRecords chunks of bounded size, each sent as an event before the scenario's result, so
// every request of every run can be exported from the controller without the agent's disk.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/runner/request_record.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::agent {

// Rows per chunk: ~100-150 bytes each serialized, so a chunk of them stays near 250 KB.
inline constexpr int kRequestRowsPerChunk = 2000;
// Bytes per chunk, serialized, whatever the rows hold: a quarter of the agent link's message
// limit (common/grpc/message_limits.h), so a chunk is always delivered and cheap to resend.
// Long dataset session ids once made 2,000 rows 5.17 MB, a chunk refused on every reconnect.
inline constexpr size_t kRequestChunkMaxBytes = size_t{1} << 20;
// A row's text fields (user_id, session_id, error) are cut to this many bytes, with a note of
// their length, so one row can never outgrow a chunk.
inline constexpr size_t kRequestRowTextMaxBytes = 4096;

// Every record of a requests.jsonl file, in file order. INVALID_ARGUMENT naming the file and
// line of a record that does not parse; NOT_FOUND when it cannot be read.
absl::StatusOr<std::vector<runner::RequestRecord>> ReadRequestRecords(const std::string& path);

v1::RequestRow ToRequestRow(const runner::RequestRecord& record);

// The records in chunks of at most `rows_per_chunk` (> 0) rows and `max_bytes` serialized bytes
// (a row alone is always a chunk), first_index and total set; one empty chunk (total 0) when there
// are none, so the controller knows the scenario had no requests.
std::vector<v1::RequestRecords> ChunkRequestRecords(
    const std::vector<runner::RequestRecord>& records, int rows_per_chunk = kRequestRowsPerChunk,
    size_t max_bytes = kRequestChunkMaxBytes);

}  // namespace kvbench::agent
