#pragma once

#include "agent/sim/lmcache/chunk_store.h"
#include "agent/sim/lmcache/lmcache_metrics.h"
#include "common/http/http_server.h"

namespace kvbench::sim::lmcache {

// The HTTP frontend of `lmcache server` that kvbench uses (reference/lmcache.md §2.1, §2.5):
//   GET  /healthcheck    200 {"status":"healthy"}
//   GET  /metrics        Prometheus text, lmcache_mp_* names (LmcacheMetrics)
//   POST /clear-cache    drops every L1 chunk (L2 files stay); 200 {"status":"ok",...}
//   POST /metrics/reset  zeroes the counters and histograms; 200 {"status":"ok"}
//   GET  /status         JSON: chunk size, L1 and L2 usage
// Every handler is quick bookkeeping, so it answers on the server's I/O thread.
class HttpApi {
 public:
  // `store` and `metrics` must outlive the server the routes are registered on.
  HttpApi(ChunkStore* store, LmcacheMetrics* metrics);

  void Register(HttpServer* server);

 private:
  ChunkStore* const store_;
  LmcacheMetrics* const metrics_;
};

}  // namespace kvbench::sim::lmcache
