#include "agent/runner/round_exchange.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace kvbench::runner {

RoundExchange::RoundExchange(const ReplayClock* clock, StopSource* stop, DoneCallback on_done)
    : clock_(clock), stop_(stop), on_done_(std::move(on_done)) {}

void RoundExchange::Send(AsyncHttpClient* client, const AsyncHttpRequest& request,
                         RequestRecord record) {
  record_ = std::move(record);
  parser_.Reset();
  stream_ = StreamAccumulator();
  record_.sent_s = clock_->Now();
  if (sim::SimClock* sim = clock_->sim()) sim->Sent();  // the engine takes it in (Received)
  client->Start(request, this);
}

void RoundExchange::OnHeaders(int http_status, MonotonicTime) { record_.http_status = http_status; }

bool RoundExchange::OnBody(absl::string_view bytes, MonotonicTime arrival) {
  if (stop_->stop_requested()) return false;
  parser_.Feed(bytes, [this, arrival](absl::string_view event) {
    if (stream_.Add(event) == StreamAccumulator::Kind::kToken && !record_.first_token_s) {
      record_.first_token_s = clock_->At(arrival);
      if (sim::SimClock* sim = clock_->sim()) sim->Received();  // kvsim-vllm counted it Sent
    }
  });
  return true;
}

void RoundExchange::OnComplete(absl::Status status, MonotonicTime end) {
  RequestRecord& record = record_;
  record.end_s = clock_->At(end);
  if (record.first_token_s) record.ttft_s = *record.first_token_s - record.scheduled_s;
  if (stream_.prompt_tokens()) record.prompt_tokens = *stream_.prompt_tokens();
  record.output_tokens = stream_.output_tokens().value_or(0);
  record.cached_tokens = stream_.cached_tokens();
  bool cancelled = false;
  if (!status.ok()) {
    if (status.code() == absl::StatusCode::kCancelled) {
      cancelled = true;
    } else if (status.code() == absl::StatusCode::kDeadlineExceeded) {
      record.error = "timeout";
    } else {
      record.error = absl::StrCat("transport: ", status.message());
    }
  } else if (record.http_status != 200) {
    record.error = absl::StrCat("http_", record.http_status);
  } else if (stream_.error()) {
    record.error = *stream_.error();
  } else if (!stream_.done()) {
    record.error = "truncated_stream";
  }
  // on_done_ may start the next request (counted Sent before this end is Received, so simulated
  // time cannot move in between) or let the exchange's owner destroy it: nothing of *this after.
  sim::SimClock* const sim = clock_->sim();
  on_done_(std::move(record_), cancelled);
  if (sim != nullptr) sim->Received();  // the end kvsim-vllm counted Sent
}

}  // namespace kvbench::runner
