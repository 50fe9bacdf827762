#include "agent/preflight/preflight.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/datasets/dataset_resolver.h"
#include "agent/preflight/binary_checks.h"
#include "agent/preflight/gpu_checks.h"
#include "agent/preflight/host_checks.h"
#include "agent/preflight/nvme_checks.h"
#include "agent/preflight/preflight_check.h"
#include "agent/tiers/tier_renderer.h"
#include "common/preflight/preflight_rules.h"
#include "common/version/version.h"

namespace kvbench::agent::preflight {
namespace {

v1::ComponentVersion Version(std::string component, std::string version, std::string source) {
  v1::ComponentVersion proto;
  proto.set_component(std::move(component));
  proto.set_version(std::move(version));
  proto.set_source(std::move(source));
  return proto;
}

// The GPU stack's versions NVML read: the driver and the CUDA version it supports.
void AddGpuVersions(const NvidiaGpus& nvidia, std::vector<v1::ComponentVersion>* versions) {
  if (!nvidia.available) return;
  if (!nvidia.driver_version.empty()) {
    versions->push_back(Version("nvidia_driver", nvidia.driver_version, "NVML"));
  }
  if (!nvidia.cuda_version.empty()) {
    versions->push_back(Version("cuda", nvidia.cuda_version, "NVML"));
  }
}

// With a job: its FAILs that keep none of its scenarios off the node become SKIPs.
void ScopeToJob(const v1::JobSpec& spec, std::vector<v1::PreflightCheck>* checks) {
  std::vector<std::pair<v1::Tier, tiers::ProfileChoice>> scenarios;
  for (int tier : spec.tiers()) {
    const auto t = static_cast<v1::Tier>(tier);
    absl::StatusOr<tiers::ProfileChoice> choice = tiers::ChooseProfiles(spec, t);
    if (choice.ok()) scenarios.emplace_back(t, *choice);
  }
  for (v1::PreflightCheck& check : *checks) {
    if (check.status() != v1::PREFLIGHT_FAIL) continue;
    const bool concerns_job = std::any_of(scenarios.begin(), scenarios.end(), [&](const auto& s) {
      return PreflightKeepsOff(check, s.first, s.second.engine, s.second.cache_server);
    });
    if (concerns_job || scenarios.empty()) continue;
    v1::PreflightCheck skipped =
        Skip(check.name(), absl::StrCat("not used by this job: ", check.detail()));
    check = std::move(skipped);
  }
}

}  // namespace

PreflightInput PreflightInput::ForAgentConfig(const v1::AgentConfig& config) {
  PreflightInput input;
  input.nvme_cache_dir = config.nvme_cache_dir();
  input.model_roots.assign(config.model_roots().begin(), config.model_roots().end());
  input.dataset_roots =
      datasets::DatasetResolver::Roots(config.dataset_cache_dir(), config.dataset_mirror());
  input.pulls_registry_datasets = !config.dataset_cache_dir().empty();
  input.gpus.assign(config.gpus().begin(), config.gpus().end());
  return input;
}

Preflight::Preflight(PreflightInput input, const tiers::ProfileSet* profiles,
                     PreflightProbes* probes)
    : input_(std::move(input)), profiles_(profiles), probes_(probes) {}

PreflightReport Preflight::RunAll() const {
  PreflightReport report;
  report.versions.push_back(Version("kvbench", kVersion, "kv-agent"));
  report.checks = CheckBinaries(*profiles_, *probes_, &report.versions);
  const GpuFindings gpus = ReadGpus(*probes_, input_.gpus);
  AddGpuVersions(gpus.nvidia, &report.versions);
  report.checks.push_back(CheckNvidia(gpus, *profiles_));
  report.checks.push_back(CheckAmd(gpus, *profiles_));
  report.checks.push_back(CheckVisibleDevices(gpus, *profiles_, *probes_));
  for (v1::PreflightCheck& check : RunCheap()) report.checks.push_back(std::move(check));
  if (input_.spec.has_value()) ScopeToJob(*input_.spec, &report.checks);
  return report;
}

std::vector<v1::PreflightCheck> Preflight::RunCheap() const {
  std::vector<v1::PreflightCheck> checks =
      CheckNvme(input_.nvme_cache_dir, *profiles_, input_.spec, *probes_);
  checks.push_back(CheckPorts(input_.listen_address, *probes_));
  checks.push_back(CheckModelRoots(input_.model_roots, input_.spec));
  checks.push_back(CheckDatasets(input_.dataset_roots, input_.allow_user_dataset_paths,
                                 input_.pulls_registry_datasets, input_.spec));
  return checks;
}

absl::Status PreflightOutcome(const PreflightReport& report) {
  std::vector<std::string> failing;
  for (const v1::PreflightCheck& check : report.checks) {
    if (check.status() == v1::PREFLIGHT_FAIL) failing.push_back(check.name());
  }
  if (failing.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "preflight: ", failing.size(),
      failing.size() == 1 ? " check FAILs: " : " checks FAIL: ", absl::StrJoin(failing, ", ")));
}

}  // namespace kvbench::agent::preflight
