#pragma once

#include <memory>
#include <string>

#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include "absl/status/statusor.h"

namespace kvbench {

// Our own Prometheus /metrics endpoint (prometheus-cpp's civetweb Exposer) and the registry
// behind it. Note: the Exposer takes ~2 s to shut down once it has served a scrape.
class MetricsServer {
 public:
  // `listen_address` is host:port; port 0 picks a free one. UNAVAILABLE if it cannot bind.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Create(const std::string& listen_address);

  prometheus::Registry& registry() { return *registry_; }
  // Registers another collectable (e.g. a LoopMetricsCollector) on the endpoint.
  void RegisterCollectable(const std::weak_ptr<prometheus::Collectable>& collectable);
  int port() const { return port_; }
  // http://host:port/metrics
  std::string url() const { return url_; }

 private:
  MetricsServer(std::unique_ptr<prometheus::Exposer> exposer, int port, std::string url);

  std::unique_ptr<prometheus::Exposer> exposer_;
  std::shared_ptr<prometheus::Registry> registry_;
  int port_;
  std::string url_;
};

}  // namespace kvbench
