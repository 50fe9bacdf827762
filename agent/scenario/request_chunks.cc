#include "agent/scenario/request_chunks.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json/validated_json.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

absl::StatusOr<std::vector<runner::RequestRecord>> ReadRequestRecords(const std::string& path) {
  KV_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  std::vector<runner::RequestRecord> records;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (line.empty()) continue;
    absl::StatusOr<runner::RequestRecord> record = runner::ParseJsonLine(line);
    if (!record.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": ", record.status().message()));
    }
    records.push_back(*std::move(record));
  }
  return records;
}

namespace {

// `text` cut to kRequestRowTextMaxBytes, saying so and how long it was.
std::string Bounded(const std::string& text) {
  if (text.size() <= kRequestRowTextMaxBytes) return text;
  std::string cut = text.substr(0, kRequestRowTextMaxBytes);
  absl::StrAppend(&cut, "... (", text.size(), " bytes)");
  return cut;
}

// The bytes a row adds to a chunk: the row and its field's tag and length.
size_t RowBytes(const v1::RequestRow& row) { return row.ByteSizeLong() + 6; }

}  // namespace

v1::RequestRow ToRequestRow(const runner::RequestRecord& record) {
  v1::RequestRow row;
  row.set_user_id(Bounded(record.user_id));
  row.set_session_id(Bounded(record.session_id));
  row.set_round(record.round);
  row.set_scheduled_s(record.scheduled_s);
  row.set_sent_s(record.sent_s);
  if (record.first_token_s) row.set_first_token_s(*record.first_token_s);
  row.set_end_s(record.end_s);
  if (record.ttft_s) row.set_ttft_s(*record.ttft_s);
  row.set_prompt_tokens(record.prompt_tokens);
  row.set_output_tokens(record.output_tokens);
  if (record.cached_tokens) row.set_cached_tokens(*record.cached_tokens);
  row.set_http_status(record.http_status);
  if (record.error) row.set_error(Bounded(*record.error));
  row.set_attempts(record.attempts);
  return row;
}

std::vector<v1::RequestRecords> ChunkRequestRecords(
    const std::vector<runner::RequestRecord>& records, int rows_per_chunk, size_t max_bytes) {
  std::vector<v1::RequestRecords> chunks;
  const int total = static_cast<int>(records.size());
  auto open_chunk = [&](int first) -> v1::RequestRecords& {
    v1::RequestRecords& chunk = chunks.emplace_back();
    chunk.set_first_index(first);
    chunk.set_total(total);
    return chunk;
  };
  if (total == 0) {
    open_chunk(0);
    return chunks;
  }
  v1::RequestRecords* chunk = &open_chunk(0);
  size_t chunk_bytes = chunk->ByteSizeLong();
  for (int i = 0; i < total; ++i) {
    v1::RequestRow row = ToRequestRow(records[static_cast<size_t>(i)]);
    const size_t row_bytes = RowBytes(row);
    if (chunk->rows_size() > 0 &&
        (chunk->rows_size() >= rows_per_chunk || chunk_bytes + row_bytes > max_bytes)) {
      chunk = &open_chunk(i);
      chunk_bytes = chunk->ByteSizeLong();
    }
    *chunk->add_rows() = std::move(row);
    chunk_bytes += row_bytes;
  }
  return chunks;
}

}  // namespace kvbench::agent
