#include "agent/scenario/cache_server_endpoints.h"

#include "absl/strings/str_cat.h"

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

}  // namespace kvbench::agent
