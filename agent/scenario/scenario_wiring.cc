#include "agent/scenario/scenario_wiring.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

absl::StatusOr<tiers::ScenarioWiring> AllocateWiring(PortAllocator& ports,
                                                     const WiringRequest& request) {
  tiers::ScenarioWiring wiring;
  wiring.cache_zmq.host = "127.0.0.1";
  if (request.cache_server) {
    KV_ASSIGN_OR_RETURN(wiring.cache_zmq.port, ports.Allocate(wiring.cache_zmq.host));
    KV_ASSIGN_OR_RETURN(wiring.cache_http_port, ports.Allocate(wiring.cache_zmq.host));
    KV_ASSIGN_OR_RETURN(wiring.cache_prometheus_port, ports.Allocate(wiring.cache_zmq.host));
  }
  for (int i = 0; i < request.replicas; ++i) {
    tiers::Endpoint replica{absl::StrCat("127.0.0.", 2 + i), 0};
    KV_ASSIGN_OR_RETURN(replica.port, ports.Allocate(replica.host));
    wiring.replicas.push_back(replica);
  }
  if (request.visible_devices) {
    KV_ASSIGN_OR_RETURN(wiring.replica_gpus, tiers::SplitGpus(request.gpus, request.replicas,
                                                              request.tensor_parallel_size));
  } else {
    wiring.replica_gpus.assign(static_cast<size_t>(request.replicas), {});
  }
  if (request.replicas >= 2) {
    wiring.proxy.host = "127.0.0.1";
    KV_ASSIGN_OR_RETURN(wiring.proxy.port, ports.Allocate(wiring.proxy.host));
    KV_ASSIGN_OR_RETURN(wiring.proxy_admin_port, ports.Allocate(wiring.proxy.host));
  }
  return wiring;
}

absl::StatusOr<std::string> WipedNvmeDir(const std::string& nvme_cache_dir,
                                         const v1::Scenario& scenario) {
  if (nvme_cache_dir.empty()) {
    return absl::FailedPreconditionError("NVME scenario on a node without nvme_cache_dir");
  }
  std::string dir =
      absl::StrCat(nvme_cache_dir, "/", scenario.job_id(), "-", scenario.scenario_id());
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  if (!error) std::filesystem::create_directories(dir, error);
  if (error) return absl::InternalError(absl::StrCat("cannot wipe ", dir, ": ", error.message()));
  return dir;
}

}  // namespace kvbench::agent
