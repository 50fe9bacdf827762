#include "agent/scenario/scenario_releases.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/release/supported_releases.h"
#include "agent/telemetry/nvml_gpu_telemetry.h"
#include "common/status/status_macros.h"
#include "common/version/version.h"

namespace kvbench::agent {
namespace {

constexpr char kCaddyComponent[] = "caddy";
constexpr char kKvbenchComponent[] = "kvbench";
constexpr char kModelConfigComponent[] = "model_config";
constexpr char kNvidiaDriverComponent[] = "nvidia_driver";
constexpr char kCudaComponent[] = "cuda";

v1::ComponentVersion Component(std::string component, std::string version, std::string source,
                               bool simulated = false) {
  v1::ComponentVersion proto;
  proto.set_component(std::move(component));
  proto.set_version(version.empty() ? "unknown" : std::move(version));
  proto.set_source(std::move(source));
  proto.set_simulated(simulated);
  return proto;
}

}  // namespace

absl::StatusOr<ScenarioReleases> ScenarioReleases::Check(release::ReleaseCache* cache,
                                                         const ScenarioPrograms& programs,
                                                         const v1::JobSpec& job) {
  ScenarioReleases releases;
  const bool simulated = programs.engine != nullptr && programs.engine->simulated();
  releases.model_ = ReadModelFamily(job.model(), simulated);
  if (releases.model_) KV_RETURN_IF_ERROR(RefuseHybridSsm(job.model(), *releases.model_));
  releases.has_caddy_ = !programs.caddy_program.empty();
  if (!simulated) {
    if (std::unique_ptr<telemetry::NvmlGpuTelemetry> nvml = telemetry::NvmlGpuTelemetry::Open()) {
      releases.nvidia_driver_ = nvml->driver_version();
      releases.cuda_ = nvml->cuda_driver_version();
    }
  }
  if (cache == nullptr) return releases;
  if (programs.engine != nullptr) {
    releases.engine_ = cache->Get(*programs.engine, programs.engine_program);
    KV_RETURN_IF_ERROR(release::CheckSupportedRelease(*releases.engine_));
  }
  if (programs.cache != nullptr) {
    releases.cache_server_ = cache->Get(*programs.cache, programs.cache_program);
    KV_RETURN_IF_ERROR(release::CheckSupportedRelease(*releases.cache_server_));
  }
  if (releases.has_caddy_) releases.caddy_version_ = cache->CaddyVersion(programs.caddy_program);
  return releases;
}

std::vector<v1::ComponentVersion> ScenarioReleases::Versions() const {
  std::vector<v1::ComponentVersion> versions;
  versions.push_back(engine_ ? engine_->ToProto()
                             : Component(release::kVllmComponent, "", "not probed"));
  if (cache_server_) versions.push_back(cache_server_->ToProto());
  if (has_caddy_) versions.push_back(Component(kCaddyComponent, caddy_version_, "caddy version"));
  versions.push_back(
      Component(kKvbenchComponent, absl::StrCat(kVersion, " (", kGitRevision, ")"), "build"));
  if (model_) {
    const bool from_catalog = model_->config_sha256.empty();
    versions.push_back(Component(
        kModelConfigComponent,
        from_catalog ? model_->architecture : absl::StrCat("sha256:", model_->config_sha256),
        model_->source, from_catalog));
  } else {
    versions.push_back(
        Component(kModelConfigComponent, "", "no config.json found (model path or hub cache)"));
  }
  if (!nvidia_driver_.empty()) {
    versions.push_back(Component(kNvidiaDriverComponent, nvidia_driver_, "NVML"));
    versions.push_back(Component(kCudaComponent, cuda_, "NVML (newest CUDA the driver supports)"));
  }
  return versions;
}

void ScenarioReleases::Record(const std::string& logs_dir, int replicas,
                              const std::string& module_path,
                              const std::vector<std::string>& dropped_flags,
                              v1::ScenarioResult* result) const {
  for (v1::ComponentVersion& version : Versions()) *result->add_versions() = std::move(version);
  if (result->tier() == v1::CPU_RAM || result->tier() == v1::NVME) {
    std::vector<std::string> logs;
    for (int i = 0; i < replicas; ++i)
      logs.push_back(absl::StrCat(logs_dir, "/replica-", i, ".log"));
    *result->mutable_kv_connector() = ReadKvConnectorLoad(logs, module_path);
  }
  if (!dropped_flags.empty()) {
    v1::ResultWarning* warning = result->add_warnings();
    warning->set_code("flag_not_supported");
    warning->set_message(absl::StrCat(
        "the cache server's release (", cache_server_ ? cache_server_->probe : "not probed",
        ") does not list ", absl::StrJoin(dropped_flags, ", "),
        " in its --help: left out, so it ran with that release's default"));
  }
}

v1::KvConnectorLoad ReadKvConnectorLoad(const std::vector<std::string>& replica_logs,
                                        const std::string& module_path) {
  const std::string kCreating = "Creating v1 connector with name: ";
  v1::KvConnectorLoad load;
  load.set_module_path(module_path);
  load.set_loaded_from(module_path.empty() ? "vllm_registry" : "module_path");
  for (const std::string& path : replica_logs) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      const size_t at = line.find(kCreating);
      if (at == std::string::npos) continue;
      const size_t begin = at + kCreating.size();
      const size_t end = line.find(' ', begin);
      load.set_class_name(line.substr(begin, end == std::string::npos ? end : end - begin));
      load.set_replicas_logged(load.replicas_logged() + 1);
      break;
    }
  }
  return load;
}

}  // namespace kvbench::agent
