#include "common/metrics/metrics_server.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "common/net/host_port.h"
#include "common/status/status_macros.h"

namespace kvbench {

MetricsServer::MetricsServer(std::unique_ptr<prometheus::Exposer> exposer, int port,
                             std::string url)
    : exposer_(std::move(exposer)),
      registry_(std::make_shared<prometheus::Registry>()),
      port_(port),
      url_(std::move(url)) {
  exposer_->RegisterCollectable(registry_);
}

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Create(
    const std::string& listen_address) {
  KV_ASSIGN_OR_RETURN(HostPort address, ParseHostPort(listen_address));
  std::unique_ptr<prometheus::Exposer> exposer;
  try {  // civetweb reports a failed bind by throwing: catch it at the edge
    exposer = std::make_unique<prometheus::Exposer>(address.ToString(), /*num_threads=*/1);
  } catch (const std::exception& error) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", listen_address, ": ", error.what()));
  }
  std::vector<int> ports = exposer->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", listen_address));
  }
  address.port = ports.front();
  std::string url = absl::StrCat("http://", address.ToString(), "/metrics");
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(exposer), ports.front(), url));
}

void MetricsServer::RegisterCollectable(const std::weak_ptr<prometheus::Collectable>& collectable) {
  exposer_->RegisterCollectable(collectable);
}

}  // namespace kvbench
