#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/supervisor/supervisor.h"
#include "agent/tiers/tier_renderer.h"
#include "common/http/http_client.h"

namespace kvbench::agent {

// Where a cache server may answer, across LMCache releases:
//  - health: GET /healthcheck (reference/lmcache.md §2.5) or GET /api/healthcheck (the http_apis
//    layout: LMCache/LMCache:lmcache/v1/multiprocess/http_apis/healthcheck_api.py@a890a36a) on
//    the HTTP port;
//  - metrics: GET /metrics on the HTTP port (the HTTP frontend serves it and starts no Prometheus
//    server: lmcache/v1/multiprocess/http_server.py@00707905, start_prometheus_http_server=False),
//    or on --prometheus-port (builds whose observability stack starts its own Prometheus server,
//    default 9090: lmcache/v1/mp_observability/config.py@ec451313).
struct CacheServerEndpoints {
  std::vector<std::string> health_urls;   // in the order tried
  std::vector<std::string> metrics_urls;  // idem
};

// The URLs of the cache server of `wiring` (pure).
CacheServerEndpoints CacheServerUrls(const tiers::ScenarioWiring& wiring);

// The first of `metrics_urls` whose GET answers 200, or nullopt with `*tried` naming what each
// answered ("GET url: HTTP 404; GET url2: connection refused").
std::optional<std::string> FindMetricsUrl(HttpClient& http,
                                          const std::vector<std::string>& metrics_urls,
                                          absl::Duration timeout, std::string* tried);

// One GET of each place the cache server's /metrics may be, once it is ready.
inline constexpr absl::Duration kCacheMetricsProbeTimeout = absl::Seconds(5);

// Where a ready cache server serves /metrics: `url` (the HTTP port's when none answered), and
// what each place answered when none did (`tried`, empty when found).
struct CacheServerMetrics {
  std::string url;
  std::string tried;
};

// Waits until the started child `name` (the cache server of `wiring`) answers one of its health
// URLs (Supervisor::AwaitReady, `ready_timeout`), then finds its /metrics (FindMetricsUrl).
// An error only when it never became ready; metrics not found are `tried`, not an error.
absl::StatusOr<CacheServerMetrics> AwaitCacheServer(Supervisor& supervisor, HttpClient& http,
                                                    const std::string& name,
                                                    const tiers::ScenarioWiring& wiring,
                                                    absl::Duration ready_timeout);

}  // namespace kvbench::agent
