#pragma once

#include <atomic>
#include <memory>

#include "absl/status/status.h"
#include "agent/sim/engine/sim_engine.h"
#include "agent/sim/vllm/openai_request.h"
#include "agent/sim/vllm/vllm_flags.h"
#include "agent/sim/vllm/vllm_metrics.h"
#include "common/http/http_server.h"

namespace kvbench::sim {

// kvsim-vllm's HTTP API, as `vllm serve` exposes it (reference/vllm.md §1): POST
// /v1/chat/completions and /v1/completions (streaming and not), GET /v1/models, GET /health
// (empty 200), POST /tokenize, GET /metrics, GET /version. Handlers run on the server's I/O
// threads and never block: generation happens on the engine thread.
class VllmApiServer {
 public:
  // `engine`, `metrics` and `clock` (may be null) are borrowed and must outlive the server. With
  // a clock, each generation request is SimClock::Received once the engine has it (kv-runner
  // counted it Sent), and its session counts what it writes back (RequestSession).
  VllmApiServer(const VllmServeOptions& options, SimEngine* engine, const VllmMetrics* metrics,
                SimClock* clock = nullptr);

  // Listens: from now on /health answers (before, connections are refused, as while vLLM loads).
  absl::Status Start();
  void Stop();
  int port() const { return server_->port(); }

 private:
  void HandleGeneration(ApiKind kind, const HttpServerRequest& request,
                        std::shared_ptr<HttpResponder> responder);
  void HandleTokenize(const HttpServerRequest& request, std::shared_ptr<HttpResponder> responder);
  void HandleModels(std::shared_ptr<HttpResponder> responder) const;
  std::string NextRequestId(ApiKind kind);

  const VllmServeOptions options_;
  const ApiContext context_;
  SimEngine* const engine_;
  const VllmMetrics* const metrics_;
  SimClock* const clock_;  // may be null
  const int64_t created_;  // unix seconds the server started: /v1/models' "created"
  std::atomic<uint64_t> next_request_{0};
  std::unique_ptr<HttpServer> server_;
};

}  // namespace kvbench::sim
