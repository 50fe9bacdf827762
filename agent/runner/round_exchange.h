#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "agent/runner/replay_clock.h"
#include "agent/runner/request_record.h"
#include "agent/runner/sse_parser.h"
#include "agent/runner/stream_accumulator.h"
#include "common/http/async_http_client.h"
#include "common/sync/stop_source.h"

namespace kvbench::runner {

// One replayed chat request at a time: the AsyncHttpObserver that turns a streamed completion
// into a RequestRecord, stamping on the I/O thread as the bytes arrive. A slot reuses its
// exchange for each of its requests; `on_done` may Send the next one at once (chaining).
//
// Record fields it fills: sent_s (just before the client gets the request), first_token_s (the
// arrival of the first event carrying a token of any kind), end_s, ttft_s (first token −
// scheduled), prompt/output/cached tokens from the usage chunk, http_status, error:
// "http_<status>", "timeout", "transport: <message>", "truncated_stream" (200 without [DONE]),
// "stream_error: <message>". Nothing is logged (the hot path).
// On a SimClock (ReplayClock::sim) it counts each request Sent before starting it, and Received
// the first token and the end once stamped: kvsim-vllm's RequestSession counts those two Sent.
class RoundExchange final : public AsyncHttpObserver {
 public:
  // `record` is the finished request; `cancelled` when `stop` or a client shutdown aborted it
  // (then the record is no result and must be dropped).
  using DoneCallback = std::function<void(RequestRecord record, bool cancelled)>;

  // `clock` and `stop` must outlive the exchange. `stop` aborts a stream at its next bytes.
  RoundExchange(const ReplayClock* clock, StopSource* stop, DoneCallback on_done);

  // Starts `request` with `record` as the skeleton (user, session, round, scheduled_s set by the
  // caller). The previous request must have completed.
  void Send(AsyncHttpClient* client, const AsyncHttpRequest& request, RequestRecord record);

  void OnHeaders(int http_status, MonotonicTime arrival) override;
  bool OnBody(absl::string_view bytes, MonotonicTime arrival) override;
  void OnComplete(absl::Status status, MonotonicTime end) override;

 private:
  const ReplayClock* clock_;
  StopSource* stop_;
  DoneCallback on_done_;

  RequestRecord record_;
  SseParser parser_;
  StreamAccumulator stream_;
};

}  // namespace kvbench::runner
