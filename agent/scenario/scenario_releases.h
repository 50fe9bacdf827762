#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/release/release_cache.h"
#include "agent/scenario/model_family.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::agent {

// The programs one scenario will start, resolved.
struct ScenarioPrograms {
  const v1::Profile* engine = nullptr;
  std::string engine_program;
  const v1::Profile* cache = nullptr;  // null for GPU
  std::string cache_program;
  std::string caddy_program;  // "" with one replica
};

// What one scenario runs against: its programs' releases (probed once per agent
// through `cache`) checked against the supported-releases table, the model's family (a hybrid
// SSM model is refused), all before any process starts; then recorded in its result.
class ScenarioReleases {
 public:
  // FAILED_PRECONDITION naming the release below its minimum, or the hybrid model. `cache` null:
  // nothing is probed (environments built by hand in tests); the versions then say "unknown".
  static absl::StatusOr<ScenarioReleases> Check(release::ReleaseCache* cache,
                                                const ScenarioPrograms& programs,
                                                const v1::JobSpec& job);

  // The cache server's release, for rendering its flags by capability; null when not probed.
  const release::ProgramRelease* cache_server() const {
    return cache_server_ ? &*cache_server_ : nullptr;
  }
  // ComponentVersions for ScenarioResult.versions, in a fixed order: vllm, lmcache (CPU_RAM,
  // NVME), caddy (2+ replicas), kvbench, model_config, and for a real engine on an NVIDIA node
  // nvidia_driver and cuda (NVML's nvmlSystemGetDriverVersion / GetCudaDriverVersion).
  std::vector<v1::ComponentVersion> Versions() const;
  // Writes Versions() into `result` and, for CPU_RAM/NVME, the KV connector its replicas loaded
  // (their logs are <logs_dir>/replica-<i>.log; `module_path` is what was rendered); and the
  // warning flag_not_supported when the cache server's `dropped_flags` were left out.
  void Record(const std::string& logs_dir, int replicas, const std::string& module_path,
              const std::vector<std::string>& dropped_flags, v1::ScenarioResult* result) const;

 private:
  std::optional<release::ProgramRelease> engine_;
  std::optional<release::ProgramRelease> cache_server_;
  std::string caddy_version_;
  bool has_caddy_ = false;
  std::optional<ModelFamily> model_;
  // A real engine's NVIDIA stack, as NVML reports it ("" when NVML cannot be loaded).
  std::string nvidia_driver_;
  std::string cuda_;
};

// The KV connector the replicas loaded (pure over their logs): the class each named in vLLM's
// factory line "Creating v1 connector with name: <class> and engine_id: <id>"
// (vllm-project/vllm:vllm/distributed/kv_transfer/kv_connector/factory.py), the module path
// rendered, and where the class came from: the module path when one was rendered (the newest
// factory imports it before its registry), else "vllm_registry".
v1::KvConnectorLoad ReadKvConnectorLoad(const std::vector<std::string>& replica_logs,
                                        const std::string& module_path);

}  // namespace kvbench::agent
