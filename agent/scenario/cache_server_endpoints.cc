#include "agent/scenario/cache_server_endpoints.h"

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

CacheServerEndpoints CacheServerUrls(const tiers::ScenarioWiring& wiring) {
  const std::string http =
      absl::StrCat("http://", wiring.cache_zmq.host, ":", wiring.cache_http_port);
  const std::string prometheus =
      absl::StrCat("http://", wiring.cache_zmq.host, ":", wiring.cache_prometheus_port);
  CacheServerEndpoints endpoints;
  endpoints.health_urls = {http + "/healthcheck", http + "/api/healthcheck"};
  endpoints.metrics_urls = {http + "/metrics", prometheus + "/metrics"};
  return endpoints;
}

std::optional<std::string> FindMetricsUrl(HttpClient& http,
                                          const std::vector<std::string>& metrics_urls,
                                          absl::Duration timeout, std::string* tried) {
  tried->clear();
  for (const std::string& url : metrics_urls) {
    absl::StatusOr<HttpResponse> response = http.Get(url, timeout);
    if (response.ok() && response->status == 200) return url;
    absl::StrAppend(tried, tried->empty() ? "" : "; ", "GET ", url, ": ",
                    response.ok() ? absl::StrCat("HTTP ", response->status)
                                  : std::string(response.status().message()));
  }
  return std::nullopt;
}

absl::StatusOr<CacheServerMetrics> AwaitCacheServer(Supervisor& supervisor, HttpClient& http,
                                                    const std::string& name,
                                                    const tiers::ScenarioWiring& wiring,
                                                    absl::Duration ready_timeout) {
  const CacheServerEndpoints endpoints = CacheServerUrls(wiring);
  ReadinessProbe probe;
  probe.url = endpoints.health_urls.front();
  probe.alternative_urls.assign(endpoints.health_urls.begin() + 1, endpoints.health_urls.end());
  KV_RETURN_IF_ERROR(supervisor.AwaitReady(name, probe, ready_timeout));
  CacheServerMetrics metrics;
  std::optional<std::string> url =
      FindMetricsUrl(http, endpoints.metrics_urls, kCacheMetricsProbeTimeout, &metrics.tried);
  if (url) metrics.tried.clear();
  metrics.url = url.value_or(endpoints.metrics_urls.front());
  return metrics;
}

}  // namespace kvbench::agent
