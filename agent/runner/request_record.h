#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::runner {

// One replayed request, as kv-runner writes it (one JSON line per request, in the order requests
// finish) and as agent/results reads it back. Times are seconds on one monotonic clock.
struct RequestRecord {
  std::string user_id;
  std::string session_id;
  int round = 0;                        // 1-based within the virtual user
  double scheduled_s = 0;               // when it was due (the previous round's end, or the start)
  double sent_s = 0;                    // when its first byte was handed to the socket
  std::optional<double> first_token_s;  // first streamed token of any kind
  double end_s = 0;                     // end of the response (or of the failure)
  std::optional<double> ttft_s;         // first_token_s - scheduled_s
  int prompt_tokens = 0;                // server's usage when reported, else counted
  int output_tokens = 0;
  std::optional<int> cached_tokens;  // usage.prompt_tokens_details.cached_tokens, if reported
  int http_status = 0;               // 0 when no response arrived
  std::optional<std::string> error;  // null on success; e.g. "truncated_stream", "timeout"
  int attempts = 1;                  // > 1 only when --agentic-max-attempts sent it again
  // How late kv-runner's I/O loop ran when first_token_s and end_s were stamped: the largest
  // lateness of its loop-lag probe (loop_lag_probe.h) in the 20 ms around each; null when not
  // measured.
  std::optional<double> loop_lag_s;

  bool ok() const { return !error.has_value(); }
};

// One compact JSON object, keys as above (null for unset optionals), no trailing newline.
std::string ToJsonLine(const RequestRecord& record);
// INVALID_ARGUMENT naming the missing or mistyped key.
absl::StatusOr<RequestRecord> ParseJsonLine(absl::string_view line);

}  // namespace kvbench::runner
