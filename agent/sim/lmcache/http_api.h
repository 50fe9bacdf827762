#pragma once

#include <string>

#include "agent/sim/lmcache/chunk_store.h"
#include "agent/sim/lmcache/lmcache_metrics.h"
#include "common/http/http_server.h"

namespace kvbench::sim::lmcache {

// The HTTP frontend of `lmcache server` that kvbench uses (reference/lmcache.md §2.1, §2.5):
//   GET  /healthcheck    200 {"status":"healthy"} (at /api/healthcheck with that
//                        healthcheck_path, as lmcache/v1/multiprocess/http_apis/
//                        healthcheck_api.py@a890a36a)
//   GET  /metrics        Prometheus text, lmcache_mp_* names (LmcacheMetrics); not on this
//                        server when metrics_on_http_port is false (older builds serve it on a
//                        Prometheus server of its own: RegisterMetrics)
//   POST /clear-cache    drops every L1 chunk (L2 files stay); 200 {"status":"ok",...}
//   POST /metrics/reset  zeroes the counters and histograms; 200 {"status":"ok"}
//   GET  /status         JSON: chunk size, L1 and L2 usage
// Every handler is quick bookkeeping, so it answers on the server's I/O thread.
class HttpApi {
 public:
  // `store` and `metrics` must outlive the server the routes are registered on.
  struct Options {
    std::string healthcheck_path = "/healthcheck";
    bool metrics_on_http_port = true;
  };
  HttpApi(ChunkStore* store, LmcacheMetrics* metrics, Options options);

  void Register(HttpServer* server);
  // GET /metrics alone, for the separate Prometheus server.
  void RegisterMetrics(HttpServer* server);

 private:
  const Options options_;
  ChunkStore* const store_;
  LmcacheMetrics* const metrics_;
};

}  // namespace kvbench::sim::lmcache
