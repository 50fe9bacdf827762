#include "agent/sim/vllm/request_session.h"

#include <thread>

#include "agent/sim/engine/tokenizer.h"

namespace kvbench::sim {

const HttpHeaders& JsonHeaders() {
  static const HttpHeaders headers = {{"Content-Type", "application/json"}};
  return headers;
}

namespace {

// The least wall time between a request's arrival and its answer's first bytes on the shared
// clock: more than a loopback proxy needs to finish sending the request upstream.
constexpr std::chrono::milliseconds kMinAnswerDelay(2);

const HttpHeaders& SseHeaders() {
  static const HttpHeaders headers = {{"Content-Type", "text/event-stream; charset=utf-8"}};
  return headers;
}

std::string TextOf(const std::vector<uint32_t>& tokens) {
  std::string text;
  for (uint32_t token : tokens) text += SimTokenizer::Decode(token);
  return text;
}

}  // namespace

RequestSession::RequestSession(std::string id, int64_t created, ParsedRequest request,
                               bool report_cached_tokens, std::shared_ptr<HttpResponder> responder,
                               SimEngine* engine, SimClock* clock)
    : id_(id),
      request_(std::move(request)),
      report_cached_tokens_(report_cached_tokens),
      formatter_(request_.kind, std::move(id), created, request_.model, request_.continuous_usage),
      responder_(std::move(responder)),
      engine_(engine),
      clock_(clock) {}

void RequestSession::Start() {
  EngineRequest engine_request;
  engine_request.id = id_;
  engine_request.prompt = request_.prompt;
  engine_request.max_tokens = request_.max_tokens;
  engine_request.ignore_eos = request_.ignore_eos;
  engine_request.on_output = [self = shared_from_this()](const RequestOutput& output) {
    self->OnOutput(output);
  };
  engine_->Submit(std::move(engine_request));
}

Usage RequestSession::UsageOf(const RequestOutput& output) const {
  Usage usage;
  usage.prompt_tokens = output.prompt_tokens;
  usage.completion_tokens = output.output_tokens;
  if (report_cached_tokens_) {
    usage.cached_tokens = output.local_cached_tokens + output.external_cached_tokens;
  }
  return usage;
}

void RequestSession::CountWrite() {
  if (clock_ != nullptr && !responder_->closed()) clock_->Sent();
}

void RequestSession::Fail(const std::string& message) {
  ApiError error = ApiError::Internal(message);
  CountWrite();  // the response's end
  if (request_.stream) {
    StartStreamOnce();
    responder_->SendChunk(ResponseFormatter::ErrorEvent(error) + ResponseFormatter::DoneEvent());
    responder_->EndStream();
  } else {
    responder_->Respond(error.status, JsonHeaders(), error.ToJson());
  }
}

void RequestSession::OnOutput(const RequestOutput& output) {
  if (responder_->closed() && !output.finished) {
    engine_->Abort(id_);  // the client went away: free the engine's slot
    return;
  }
  if (!output.error.empty()) return Fail(output.error);
  const std::string text = TextOf(output.new_tokens);
  const Usage usage = UsageOf(output);
  if (!request_.stream) {
    text_ += text;
    if (output.finished) {
      CountWrite();
      if (clock_ != nullptr) std::this_thread::sleep_until(received_ + kMinAnswerDelay);
      responder_->Respond(200, JsonHeaders(),
                          formatter_.FullResponse(text_, output.finish_reason, usage));
    }
    return;
  }
  std::string events;
  if (output.finished) {
    if (output.first) events = formatter_.FirstEvents("", usage);
    events += formatter_.FinishEvent(text, output.finish_reason, usage);
    if (request_.include_usage) events += formatter_.UsageEvent(usage);
    events += ResponseFormatter::DoneEvent();
  } else {
    events =
        output.first ? formatter_.FirstEvents(text, usage) : formatter_.DeltaEvent(text, usage);
  }
  if (!text.empty() && !text_counted_) {
    text_counted_ = true;
    CountWrite();  // the first token kv-runner stamps
  }
  if (output.finished) CountWrite();
  StartStreamOnce();
  responder_->SendChunk(std::move(events));
  if (output.finished) responder_->EndStream();
}

// The status line and headers go out with the first events, not when the request arrives: an
// answer whose headers follow the request body within microseconds makes Go's reverse proxy (Caddy
// 2.6.2) close the upstream connection mid-response and hand the client a clean but empty 200
// (golang/go#40747, reference/caddy.md). Real vLLM never answers that fast (its API server
// tokenizes and schedules first), so neither does the simulator.
//
// On the shared simulated clock an answer can follow its request within microseconds of wall time
// (a cached prompt's step, on a host behind its pace, goes out at once), so the first bytes wait
// until kMinAnswerDelay after the request came in. The wait is wall time only: it is spent inside
// the engine's turn, while simulated time stands still.
void RequestSession::StartStreamOnce() {
  if (stream_started_) return;
  stream_started_ = true;
  if (clock_ != nullptr) std::this_thread::sleep_until(received_ + kMinAnswerDelay);
  responder_->StartStream(200, SseHeaders());
}

}  // namespace kvbench::sim
