#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "agent/sim/clock/sim_clock.h"
#include "agent/sim/engine/sim_engine.h"
#include "agent/sim/vllm/openai_request.h"
#include "agent/sim/vllm/response_formatter.h"
#include "common/http/http_server.h"

namespace kvbench::sim {

// Content-Type: application/json, the headers of every JSON body the server answers.
const HttpHeaders& JsonHeaders();

// One API request in flight: submits it to the engine and turns the engine's outputs into the
// HTTP response (an SSE stream or one JSON body). Streams start (status and headers) at once, as
// vLLM's do; an engine failure after that arrives as an in-stream error event. A client that goes
// away aborts its request in the engine. Outputs arrive on the engine thread; the responder queues
// the writes onto the connection.
// With a SimClock (kvsim-vllm --sim-clock) it counts, before writing them, the two things kv-runner
// takes in at a simulated instant: the first chunk that carries text (the first token kv-runner
// stamps) and the response's end (SimClock::Sent; kv-runner calls Received for each). Writes to a
// client that went away are not counted: no one will receive them.
class RequestSession : public std::enable_shared_from_this<RequestSession> {
 public:
  RequestSession(std::string id, int64_t created, ParsedRequest request, bool report_cached_tokens,
                 std::shared_ptr<HttpResponder> responder, SimEngine* engine,
                 SimClock* clock = nullptr);

  void Start();

 private:
  void OnOutput(const RequestOutput& output);
  Usage UsageOf(const RequestOutput& output) const;
  void Fail(const std::string& message);
  void StartStreamOnce();
  // SimClock::Sent for a write kv-runner will take in (no-op without a clock or a client).
  void CountWrite();

  const std::string id_;
  const ParsedRequest request_;
  const bool report_cached_tokens_;
  const ResponseFormatter formatter_;
  std::shared_ptr<HttpResponder> responder_;
  SimEngine* const engine_;
  SimClock* const clock_;        // may be null
  bool stream_started_ = false;  // engine outputs of one request never overlap
  bool text_counted_ = false;    // the first chunk carrying text was counted
  const std::chrono::steady_clock::time_point received_ = std::chrono::steady_clock::now();
  std::string text_;             // non-streaming: the whole output so far
};

}  // namespace kvbench::sim
