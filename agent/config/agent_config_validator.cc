#include "agent/config/agent_config_validator.h"

#include <cmath>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/config/config_checks.h"
#include "common/grpc/controller_addresses.h"
#include "common/json/validated_json.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {
namespace {

void ValidateControllerLink(const v1::AgentConfig& config, FieldErrors* errors) {
  if (config.controller_address().empty()) return;  // standalone: kvctl run only
  // One controller, or several sharing a PostgreSQL store ("a:7070,b:7070"): each a host:port.
  absl::StatusOr<ControllerAddresses> addresses =
      ControllerAddresses::Parse(config.controller_address());
  if (!addresses.ok()) {
    errors->Add("controller_address", std::string(addresses.status().message()));
  } else {
    for (const std::string& address : addresses->all()) {
      CheckHostPort(errors, "controller_address", address, /*allow_port_zero=*/false);
    }
  }
  if (config.insecure()) return;
  const v1::TlsConfig& tls = config.tls();
  const bool any_tls =
      !tls.ca_cert_path().empty() || !tls.cert_path().empty() || !tls.key_path().empty();
  if (!any_tls) {
    errors->Add("tls",
                "is required to reach a controller (mTLS); set \"insecure\": true only "
                "for local use");
    return;
  }
  CheckAbsolutePath(errors, "tls.ca_cert_path", tls.ca_cert_path(), /*required=*/true);
  CheckAbsolutePath(errors, "tls.cert_path", tls.cert_path(), /*required=*/true);
  CheckAbsolutePath(errors, "tls.key_path", tls.key_path(), /*required=*/true);
}

void ValidateGpus(const v1::AgentConfig& config, FieldErrors* errors) {
  std::set<int> seen;
  for (int i = 0; i < config.gpus_size(); ++i) {
    const v1::GpuInfo& gpu = config.gpus(i);
    std::string field = absl::StrCat("gpus[", i, "]");
    if (gpu.index() < 0 || !seen.insert(gpu.index()).second) {
      errors->Add(field + ".index", absl::StrCat(gpu.index(), " must be >= 0 and unique"));
    }
    if (gpu.vendor() == v1::VENDOR_UNSPECIFIED) {
      errors->Add(field + ".vendor", "is required: NVIDIA or AMD");
    } else if (gpu.vendor() != config.gpus(0).vendor()) {
      errors->Add(field + ".vendor", "every GPU of a node must have the same vendor");
    }
    if (gpu.memory_bytes() <= 0) errors->Add(field + ".memory_bytes", "must be greater than 0");
  }
}

}  // namespace

FieldErrors ValidateAgentConfig(const v1::AgentConfig& config) {
  FieldErrors errors;
  ValidateControllerLink(config, &errors);
  CheckAbsolutePath(&errors, "work_dir", config.work_dir(), /*required=*/true);
  CheckAbsolutePath(&errors, "profiles_dir", config.profiles_dir(), /*required=*/true);
  CheckAbsolutePath(&errors, "nvme_cache_dir", config.nvme_cache_dir(), /*required=*/false);
  CheckAbsolutePath(&errors, "dataset_cache_dir", config.dataset_cache_dir(), /*required=*/false);
  CheckOwnFolder(&errors, "work_dir", config.work_dir());
  // Empty: the hostname, checked once it is filled in (LoadAgentConfig).
  if (!config.agent_id().empty()) {
    if (std::string problem = AgentIdProblem(config.agent_id()); !problem.empty()) {
      errors.Add("agent_id", problem);
    }
  }
  CheckOwnFolder(&errors, "nvme_cache_dir", config.nvme_cache_dir());
  CheckOwnFolder(&errors, "dataset_cache_dir", config.dataset_cache_dir());
  const std::string& mirror = config.dataset_mirror();
  if (!mirror.empty() && !absl::StartsWith(mirror, "http://") &&
      !absl::StartsWith(mirror, "https://")) {
    CheckAbsolutePath(&errors, "dataset_mirror", mirror, /*required=*/false);
  }
  if (!config.metrics_listen().empty()) {
    CheckHostPort(&errors, "metrics_listen", config.metrics_listen(), /*allow_port_zero=*/true);
  }
  if (config.heartbeat_interval_s() != 0) {
    CheckSeconds(&errors, "heartbeat_interval_s", config.heartbeat_interval_s(), 300);
  }
  if (config.child_stop_grace_s() != 0) {
    CheckSeconds(&errors, "child_stop_grace_s", config.child_stop_grace_s(), 3600);
  }
  if (config.has_scenario_retention_days()) {
    const double days = config.scenario_retention_days();
    if (!std::isfinite(days) || days < 0 || days > kMaxScenarioRetentionDays) {
      errors.Add("scenario_retention_days",
                 absl::StrCat(days, " is out of range: must be 0 (keep forever) to ",
                              kMaxScenarioRetentionDays, " days"));
    }
  }
  for (int i = 0; i < config.model_roots_size(); ++i) {
    const std::string field = absl::StrCat("model_roots[", i, "]");
    CheckAbsolutePath(&errors, field, config.model_roots(i), /*required=*/true);
    if (config.model_roots(i) == "/") {
      errors.Add(field,
                 "\"/\" would let a job load any file as a model; name the checkpoints' folder");
    }
  }
  ValidateGpus(config, &errors);
  return errors;
}

void ApplyAgentConfigDefaults(const std::string& hostname, v1::AgentConfig* config) {
  if (config->agent_id().empty()) config->set_agent_id(hostname);
  if (config->heartbeat_interval_s() == 0) {
    config->set_heartbeat_interval_s(kDefaultHeartbeatIntervalSeconds);
  }
  if (config->child_stop_grace_s() == 0) {
    config->set_child_stop_grace_s(kDefaultChildStopGraceSeconds);
  }
  if (!config->has_scenario_retention_days()) {
    config->set_scenario_retention_days(kDefaultScenarioRetentionDays);
  }
}

absl::StatusOr<v1::AgentConfig> LoadAgentConfig(const std::string& path,
                                                const std::string& hostname) {
  const auto resolve_paths = [&path](v1::AgentConfig* config) {
    for (std::string* field :
         {config->mutable_work_dir(), config->mutable_profiles_dir(),
          config->mutable_nvme_cache_dir(), config->mutable_dataset_cache_dir(),
          config->mutable_dataset_mirror()}) {
      ResolveAgainstConfigFile(path, field);
    }
    for (std::string& root : *config->mutable_model_roots()) ResolveAgainstConfigFile(path, &root);
    if (config->has_tls()) ResolveTlsPaths(path, config->mutable_tls());
  };
  KV_ASSIGN_OR_RETURN(v1::AgentConfig config, LoadValidatedFile<v1::AgentConfig>(
                                                  path, &ValidateAgentConfig, resolve_paths));
  ApplyAgentConfigDefaults(hostname, &config);
  if (std::string problem = AgentIdProblem(config.agent_id()); !problem.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": agent_id defaults to this host's name, ", problem, ": set \"agent_id\""));
  }
  return config;
}

}  // namespace kvbench::agent
