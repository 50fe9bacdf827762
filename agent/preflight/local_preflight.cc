#include "agent/preflight/local_preflight.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "agent/preflight/posix_preflight_probes.h"
#include "agent/tiers/profile_set.h"
#include "common/status/status_macros.h"

namespace kvbench::agent::preflight {

absl::StatusOr<PreflightReport> RunLocalPreflight(LocalRunOptions options,
                                                  const std::optional<v1::JobSpec>& spec) {
  const std::string profiles_dir = LocalJobRun::FindProfilesDir(options.profiles_dir);
  absl::StatusOr<tiers::ProfileSet> profiles = tiers::ProfileSet::LoadDir(profiles_dir);
  if (!profiles.ok()) {
    return absl::Status(profiles.status().code(),
                        absl::StrCat("profiles ", profiles_dir, ": ", profiles.status().message()));
  }
  KV_ASSIGN_OR_RETURN(std::unique_ptr<PosixPreflightProbes> probes, PosixPreflightProbes::Create());
  PreflightInput input;
  std::error_code error;
  const std::string out_dir = std::filesystem::absolute(options.out_dir, error).string();
  input.nvme_cache_dir = options.nvme_cache_dir.empty() ? absl::StrCat(out_dir, "/<job>/nvme-cache")
                                                        : options.nvme_cache_dir;
  input.model_roots = options.model_roots;
  input.dataset_roots = LocalJobRun::DatasetRoots(options.dataset_mirror);
  input.allow_user_dataset_paths = true;
  input.pulls_registry_datasets = false;
  const v1::Vendor vendor =
      spec.has_value() && spec->build() != v1::VENDOR_UNSPECIFIED ? spec->build() : v1::NVIDIA;
  for (int index : options.gpus) {
    v1::GpuInfo& gpu = input.gpus.emplace_back();
    gpu.set_index(index);
    gpu.set_vendor(vendor);
  }
  input.offer_discovered_gpus = false;
  input.spec = spec;
  return Preflight(std::move(input), &*profiles, probes.get()).RunAll();
}

}  // namespace kvbench::agent::preflight
