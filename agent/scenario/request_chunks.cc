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

v1::RequestRow ToRequestRow(const runner::RequestRecord& record) {
  v1::RequestRow row;
  row.set_user_id(record.user_id);
  row.set_session_id(record.session_id);
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
  if (record.error) row.set_error(*record.error);
  row.set_attempts(record.attempts);
  return row;
}

std::vector<v1::RequestRecords> ChunkRequestRecords(
    const std::vector<runner::RequestRecord>& records, int rows_per_chunk) {
  std::vector<v1::RequestRecords> chunks;
  const int total = static_cast<int>(records.size());
  for (int first = 0; first < total || (first == 0 && chunks.empty()); first += rows_per_chunk) {
    v1::RequestRecords& chunk = chunks.emplace_back();
    chunk.set_first_index(first);
    chunk.set_total(total);
    for (int i = first; i < std::min(total, first + rows_per_chunk); ++i) {
      *chunk.add_rows() = ToRequestRow(records[static_cast<size_t>(i)]);
    }
    if (total == 0) break;
  }
  return chunks;
}

}  // namespace kvbench::agent
