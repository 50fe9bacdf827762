#include "agent/scenario/scenario_wiring.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/scenario/free_space.h"
#include "common/log/logging.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

namespace {

// The owner as written into a pool's marker: absolute, so a relative run dir names the same owner
// from any working directory.
std::string OwnerName(const std::string& owner) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(owner, error);
  return error ? owner : absolute.lexically_normal().string();
}

}  // namespace

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
                                         const v1::Scenario& scenario, const std::string& owner,
                                         int64_t pool_bytes) {
  if (nvme_cache_dir.empty()) {
    return absl::FailedPreconditionError("NVME scenario on a node without nvme_cache_dir");
  }
  std::string dir =
      absl::StrCat(nvme_cache_dir, "/", scenario.job_id(), "-", scenario.scenario_id());
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  if (!error) std::filesystem::create_directories(dir, error);
  if (error) return absl::InternalError(absl::StrCat("cannot wipe ", dir, ": ", error.message()));
  const std::optional<int64_t> free = FreeBytesUnder(dir);
  if (free.has_value() && *free < pool_bytes) {
    std::filesystem::remove_all(dir, error);
    return absl::FailedPreconditionError(absl::StrFormat(
        "the NVMe pool needs %.2f GiB free under %s (nvme_pool_gb); its file system has %.2f GiB",
        static_cast<double>(pool_bytes) / kBytesPerPoolGb, nvme_cache_dir,
        static_cast<double>(*free) / kBytesPerPoolGb));
  }
  std::ofstream marker(absl::StrCat(dir, "/", kNvmePoolOwnerFile), std::ios::trunc);
  marker << OwnerName(owner) << "\n";
  if (!marker.flush()) return absl::InternalError(absl::StrCat("cannot mark ", dir, " as ours"));
  return dir;
}

int SweepNvmePools(const std::string& nvme_cache_dir, const std::string& owner) {
  if (nvme_cache_dir.empty()) return 0;
  const std::string owner_name = OwnerName(owner);
  std::error_code error;
  std::vector<std::filesystem::path> ours;
  for (const auto& entry : std::filesystem::directory_iterator(nvme_cache_dir, error)) {
    std::ifstream marker(entry.path() / kNvmePoolOwnerFile);
    std::string marked;
    if (std::getline(marker, marked) && marked == owner_name) ours.push_back(entry.path());
  }
  int removed = 0;
  for (const std::filesystem::path& dir : ours) {
    std::filesystem::remove_all(dir, error);
    if (error) {
      KV_LOG(WARNING) << "cannot remove a pool dir left behind dir=" << dir.string()
                      << " error=" << error.message();
      continue;
    }
    ++removed;
  }
  return removed;
}

}  // namespace kvbench::agent
