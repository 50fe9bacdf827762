// A scenario's request rows in chunks the agent link always delivers: at most 2,000 rows and
// 1 MiB each, whatever the rows hold. Long dataset session ids once made 2,000 rows 5.17 MB,
// over gRPC's 4 MB limit: the chunk was refused on every reconnect, forever.

#include "agent/scenario/request_chunks.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/grpc/message_limits.h"

namespace kvbench::agent {
namespace {

std::vector<runner::RequestRecord> Records(int count, size_t session_id_bytes) {
  std::vector<runner::RequestRecord> records;
  for (int i = 0; i < count; ++i) {
    runner::RequestRecord& record = records.emplace_back();
    record.user_id = absl::StrCat("user-", i);
    record.session_id = std::string(session_id_bytes, 's') + std::to_string(i);
    record.round = 1 + i % 5;
    record.end_s = i;
    record.prompt_tokens = 100 + i;
  }
  return records;
}

// Every row once, in order, each chunk's first_index where the one before ended.
void CheckCoverage(const std::vector<v1::RequestRecords>& chunks, int total) {
  int next = 0;
  for (const v1::RequestRecords& chunk : chunks) {
    CHECK(chunk.first_index() == next);
    CHECK(chunk.total() == total);
    for (const v1::RequestRow& row : chunk.rows()) {
      CHECK(row.user_id() == absl::StrCat("user-", next));
      ++next;
    }
  }
  CHECK(next == total);
}

TEST_CASE("Short rows are chunked 2,000 at a time", "[request_chunks]") {
  const std::vector<v1::RequestRecords> chunks = ChunkRequestRecords(Records(4500, 40));
  REQUIRE(chunks.size() == 3);
  CHECK(chunks[0].rows_size() == 2000);
  CHECK(chunks[1].rows_size() == 2000);
  CHECK(chunks[2].rows_size() == 500);
  CheckCoverage(chunks, 4500);
}

TEST_CASE("Long session ids make more chunks, each within 1 MiB", "[request_chunks]") {
  // 2,000 rows of ~2.6 KB: 5.2 MB, as the rows that were refused forever.
  const std::vector<v1::RequestRecords> chunks = ChunkRequestRecords(Records(2000, 2600));
  REQUIRE(chunks.size() >= 5);
  for (const v1::RequestRecords& chunk : chunks) {
    INFO("chunk at " << chunk.first_index() << ": " << chunk.ByteSizeLong() << " bytes");
    CHECK(chunk.ByteSizeLong() <= kRequestChunkMaxBytes);
    // As an event on the link, with room to spare.
    v1::Event event;
    *event.mutable_requests() = chunk;
    CHECK(event.ByteSizeLong() < kMaxEventBytes);
  }
  CheckCoverage(chunks, 2000);
}

TEST_CASE("A text field past 4 KiB is cut, saying how long it was", "[request_chunks]") {
  std::vector<runner::RequestRecord> records = Records(1, 0);
  records[0].session_id = std::string(3 << 20, 'x');  // 3 MiB: alone over a chunk
  records[0].error = std::string(10000, 'e');
  const std::vector<v1::RequestRecords> chunks = ChunkRequestRecords(records);
  REQUIRE(chunks.size() == 1);
  const v1::RequestRow& row = chunks[0].rows(0);
  CHECK(row.session_id() == std::string(kRequestRowTextMaxBytes, 'x') + "... (3145728 bytes)");
  CHECK(row.error() == std::string(kRequestRowTextMaxBytes, 'e') + "... (10000 bytes)");
  CHECK(row.user_id() == "user-0");
}

TEST_CASE("No requests make one empty chunk", "[request_chunks]") {
  const std::vector<v1::RequestRecords> chunks = ChunkRequestRecords({});
  REQUIRE(chunks.size() == 1);
  CHECK(chunks[0].total() == 0);
  CHECK(chunks[0].rows_size() == 0);
}

}  // namespace
}  // namespace kvbench::agent
