#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "agent/sim/clock/sim_clock.h"
#include "agent/sim/lmcache/chunk_store.h"
#include "agent/sim/lmcache/eviction_loop.h"
#include "agent/sim/lmcache/http_api.h"
#include "agent/sim/lmcache/l2_adapter.h"
#include "agent/sim/lmcache/lmcache_metrics.h"
#include "agent/sim/lmcache/request_handler.h"
#include "agent/sim/lmcache/server_config.h"
#include "agent/sim/lmcache/zmq_service.h"
#include "common/http/http_server.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"

namespace kvbench::sim::lmcache {

// kvsim-lmcache, assembled: metrics, the optional L2 adapter, the chunk store, the request
// handler, the eviction loop, the ZMQ service and the HTTP API. Members are declared in
// dependency order; Shutdown() and destruction go in reverse.
class LmcacheServer {
 public:
  // Builds everything and binds the ZMQ socket (so a port in use fails here). `executor` runs
  // the eviction loop; it and `clock` must outlive the server.
  static absl::StatusOr<std::unique_ptr<LmcacheServer>> Create(const ServerConfig& config,
                                                               Executor* executor,
                                                               const Clock* clock);
  ~LmcacheServer();
  LmcacheServer(const LmcacheServer&) = delete;
  LmcacheServer& operator=(const LmcacheServer&) = delete;

  // Serves ZMQ, then listens on HTTP, starts the eviction loop and logs
  // "LMCache cache server is running...". UNAVAILABLE naming the address if HTTP cannot bind.
  absl::Status Start();
  // Stops HTTP, then ZMQ and the eviction loop, and waits for queued L2 writes. Idempotent.
  void Shutdown();

  const std::string& zmq_endpoint() const { return zmq_->endpoint(); }
  int zmq_port() const { return zmq_->port(); }
  int http_port() const { return http_->port(); }
  // The separate Prometheus server's port; -1 when /metrics is on the HTTP port.
  int metrics_port() const { return metrics_http_ != nullptr ? metrics_http_->port() : -1; }
  ChunkStore& store() { return *store_; }
  LmcacheMetrics& metrics() { return *metrics_; }

 private:
  explicit LmcacheServer(const ServerConfig& config);

  const ServerConfig config_;
  std::unique_ptr<LmcacheMetrics> metrics_;
  std::unique_ptr<L2Adapter> l2_;  // null without --l2-adapter
  std::unique_ptr<ChunkStore> store_;
  std::unique_ptr<SimClock> sim_clock_;  // null without --sim-clock
  std::unique_ptr<EvictionLoop> eviction_loop_;
  std::unique_ptr<RequestHandler> handler_;
  std::unique_ptr<ZmqService> zmq_;
  std::unique_ptr<HttpApi> http_api_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<HttpServer> metrics_http_;  // only with --sim-metrics-on-prometheus-port
  bool shut_down_ = false;
};

}  // namespace kvbench::sim::lmcache
