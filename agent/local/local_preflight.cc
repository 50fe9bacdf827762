#include "agent/local/local_preflight.h"

#include <filesystem>
#include <system_error>

#include "agent/agent.h"
#include "agent/agent_environment.h"
#include "agent/preflight/posix_preflight_probes.h"
#include "common/status/status_macros.h"

namespace kvbench::agent {

absl::StatusOr<preflight::PreflightReport> RunLocalPreflight(
    LocalRunOptions options, const std::optional<v1::JobSpec>& spec) {
  std::error_code error;
  options.out_dir = std::filesystem::absolute(options.out_dir, error).string();
  if (spec.has_value() && spec->build() != v1::VENDOR_UNSPECIFIED) {
    options.gpu_vendor = spec->build();
  } else if (options.gpu_vendor == v1::VENDOR_UNSPECIFIED) {
    options.gpu_vendor = v1::NVIDIA;
  }
  const v1::AgentConfig config = LocalRunConfig::AgentConfig(options, "<job>");
  KV_ASSIGN_OR_RETURN(tiers::ProfileSet profiles, Agent::LoadProfiles(config));
  KV_ASSIGN_OR_RETURN(std::unique_ptr<preflight::PosixPreflightProbes> probes,
                      preflight::PosixPreflightProbes::Create());
  preflight::PreflightInput input =
      AgentPreflightInput(config, LocalRunConfig::Seams(options, "<job>"));
  input.spec = spec;
  return preflight::Preflight(std::move(input), &profiles, probes.get()).RunAll();
}

}  // namespace kvbench::agent
