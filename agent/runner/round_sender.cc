#include "agent/runner/round_sender.h"

#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "agent/runner/sse_parser.h"
#include "agent/runner/stream_accumulator.h"

namespace kvbench::runner {

RoundSender::RoundSender(HttpClient* client, std::string base_url, absl::Duration timeout,
                         const std::atomic<bool>* stop, ReplayClock clock)
    : client_(client),
      base_url_(std::move(base_url)),
      timeout_(timeout),
      stop_(stop),
      clock_(clock) {}

HttpRequest RoundSender::MakeRequest(const std::string& path, const std::string& user_id,
                                     const std::string& body) const {
  HttpRequest request;
  request.method = "POST";
  request.url = base_url_ + path;
  request.headers = {{"Content-Type", "application/json"}, {"x-user-id", user_id}};
  request.body = body;
  request.timeout = timeout_;
  return request;
}

RoundSender::Outcome RoundSender::Send(const std::string& user_id, const std::string& body,
                                       double scheduled_s) const {
  Outcome outcome;
  RequestRecord& record = outcome.record;
  record.scheduled_s = scheduled_s;
  HttpRequest request = MakeRequest("/v1/chat/completions", user_id, body);
  SseParser parser;
  StreamAccumulator stream;
  std::vector<std::string> events;
  HttpChunkCallback on_chunk = [&](absl::string_view chunk) {
    if (stop_->load(std::memory_order_relaxed)) return false;
    double now = clock_.Now();
    parser.Feed(chunk, &events);
    for (const std::string& event : events) {
      if (stream.Add(event) == StreamAccumulator::Kind::kToken && !record.first_token_s) {
        record.first_token_s = now;
      }
    }
    events.clear();
    return true;
  };
  record.sent_s = clock_.Now();
  absl::StatusOr<HttpResponse> response = client_->SendStreaming(request, on_chunk);
  record.end_s = clock_.Now();
  if (record.first_token_s) record.ttft_s = *record.first_token_s - record.scheduled_s;
  record.prompt_tokens = stream.prompt_tokens().value_or(0);
  record.output_tokens = stream.output_tokens().value_or(0);
  record.cached_tokens = stream.cached_tokens();
  if (!response.ok()) {
    if (response.status().code() == absl::StatusCode::kCancelled &&
        stop_->load(std::memory_order_relaxed)) {
      outcome.cancelled = true;
    } else if (response.status().code() == absl::StatusCode::kDeadlineExceeded) {
      record.error = "timeout";
    } else {
      record.error = absl::StrCat("transport: ", response.status().message());
    }
    return outcome;
  }
  record.http_status = response->status;
  if (response->status != 200) {
    record.error = absl::StrCat("http_", response->status);
  } else if (stream.error()) {
    record.error = *stream.error();
  } else if (!stream.done()) {
    record.error = "truncated_stream";
  }
  return outcome;
}

absl::StatusOr<int> RoundSender::CountTokens(const std::string& user_id,
                                             const std::string& tokenize_body) const {
  absl::StatusOr<HttpResponse> response =
      client_->Send(MakeRequest("/tokenize", user_id, tokenize_body));
  if (!response.ok()) return response.status();
  if (response->status != 200) {
    return absl::UnavailableError(absl::StrCat("/tokenize answered ", response->status));
  }
  nlohmann::json body = nlohmann::json::parse(response->body, nullptr, false);
  if (!body.is_object() || !body.contains("count") || !body["count"].is_number_integer()) {
    return absl::InternalError("/tokenize answer has no integer count");
  }
  return body["count"].get<int>();
}

}  // namespace kvbench::runner
