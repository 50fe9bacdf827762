#include "agent/preflight/gpu_checks.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "agent/preflight/finding_list.h"
#include "agent/preflight/preflight_check.h"

namespace kvbench::agent::preflight {
namespace {

constexpr char kCudaVisibleDevices[] = "CUDA_VISIBLE_DEVICES";
constexpr char kHipVisibleDevices[] = "HIP_VISIBLE_DEVICES";
constexpr char kRocrVisibleDevices[] = "ROCR_VISIBLE_DEVICES";
constexpr char kCudaDeviceOrder[] = "CUDA_DEVICE_ORDER";
constexpr int64_t kBytesPerMib = 1024 * 1024;

// The VLLM engine profiles built for `vendor`: what a GPU problem of that vendor keeps off.
std::vector<std::string> EngineProfiles(const tiers::ProfileSet& profiles, v1::Vendor vendor) {
  std::vector<std::string> names;
  for (const std::string& name : profiles.names()) {
    const v1::Profile& profile = **profiles.Find(name);
    if (profile.role() == v1::ENGINE && profile.engine() == v1::VLLM &&
        profile.vendor() == vendor) {
      names.push_back(name);
    }
  }
  return names;
}

// "8x NVIDIA H200 (143771 MiB)", "1x NVIDIA H200 (143771 MiB), 1x NVIDIA A100 (81920 MiB)".
std::string Models(const std::vector<telemetry::GpuReading>& gpus) {
  std::vector<std::pair<std::string, int>> counts;  // "name (memory)" in first-seen order
  for (const telemetry::GpuReading& gpu : gpus) {
    std::string model = gpu.name.empty() ? "unnamed GPU" : gpu.name;
    if (gpu.memory_total_bytes) {
      absl::StrAppend(&model, " (", *gpu.memory_total_bytes / kBytesPerMib, " MiB)");
    }
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&model](const auto& count) { return count.first == model; });
    if (it == counts.end()) {
      counts.emplace_back(model, 1);
    } else {
      ++it->second;
    }
  }
  return absl::StrJoin(counts, ", ", [](std::string* out, const auto& count) {
    absl::StrAppend(out, count.second, "x ", count.first);
  });
}

std::string Plural(size_t n, absl::string_view word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

std::vector<int> OfferedIndices(const std::vector<v1::GpuInfo>& offered, v1::Vendor vendor) {
  std::vector<int> indices;
  for (const v1::GpuInfo& gpu : offered) {
    if (gpu.vendor() == vendor) indices.push_back(gpu.index());
  }
  return indices;
}

// Offered indices of `vendor` that the tool (`found` GPUs, indexed 0..n-1) does not have.
std::vector<int> Missing(const std::vector<int>& offered, size_t found) {
  std::vector<int> missing;
  for (int index : offered) {
    if (index < 0 || static_cast<size_t>(index) >= found) missing.push_back(index);
  }
  return missing;
}

v1::PreflightCheck CheckOfferedAgainstFound(absl::string_view name, const std::string& detail,
                                            const std::vector<int>& offered, size_t found,
                                            const std::string& tool,
                                            std::vector<std::string> profiles) {
  const std::vector<int> missing = Missing(offered, found);
  if (missing.empty()) return Ok(name, detail);
  FindingList findings;
  findings.Add(v1::PREFLIGHT_FAIL,
               absl::StrCat(detail, "; the config's gpus offer index ", absl::StrJoin(missing, ","),
                            ", which ", tool, " does not have"),
               absl::StrCat("list in the config's gpus only the indices ", tool,
                            " shows (0-based, as nvidia-smi / amd-smi number them)"),
               std::move(profiles));
  return findings.ToCheck(name);
}

// Entries of a *_VISIBLE_DEVICES value as indices; nullopt when one is not a number (a UUID,
// a MIG id).
std::optional<std::set<int>> Indices(const std::string& value) {
  std::set<int> indices;
  for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
    int index = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &index)) return std::nullopt;
    indices.insert(index);
  }
  return indices;
}

// The agent's own `variable` against the `offered` GPUs of a vendor.
void CompareVisible(const std::string& variable, const std::vector<int>& offered,
                    PreflightProbes& probes, const std::vector<std::string>& profiles,
                    FindingList* findings) {
  const std::string offered_text = absl::StrJoin(offered, ",");
  const std::optional<std::string> value = probes.GetEnv(variable);
  if (!value.has_value()) {
    findings->Add(v1::PREFLIGHT_OK, absl::StrCat(variable,
                                                 " unset: replicas get their share of "
                                                 "GPUs ",
                                                 offered_text));
    return;
  }
  const std::string remedy = absl::StrCat(
      "list in the config's gpus exactly the GPUs this agent may use and start kv-agent without ",
      variable, " (the agent sets it for each replica)");
  const std::optional<std::set<int>> visible = Indices(*value);
  if (!visible.has_value()) {
    findings->Add(v1::PREFLIGHT_WARN,
                  absl::StrCat(variable, "=", *value,
                               " is not a list of indices: cannot check it against the offered "
                               "GPUs ",
                               offered_text, "; replicas get indices"),
                  remedy);
    return;
  }
  std::vector<int> outside;
  for (int index : offered) {
    if (visible->count(index) == 0) outside.push_back(index);
  }
  if (outside.empty()) {
    findings->Add(v1::PREFLIGHT_OK, absl::StrCat(variable, "=", *value,
                                                 " in the agent's environment covers the offered "
                                                 "GPUs ",
                                                 offered_text));
    return;
  }
  findings->Add(v1::PREFLIGHT_FAIL,
                absl::StrCat(variable, "=\"", *value,
                             "\" in the agent's environment, but it offers "
                             "GPUs ",
                             offered_text, " and sets each replica's ", variable,
                             " itself: replicas would run on GPU ", absl::StrJoin(outside, ","),
                             " outside it"),
                remedy, profiles);
}

// A VLLM profile whose variable is not its vendor's.
void CheckProfileVariables(const tiers::ProfileSet& profiles, FindingList* findings) {
  for (const std::string& name : profiles.names()) {
    const v1::Profile& profile = **profiles.Find(name);
    if (profile.role() != v1::ENGINE || profile.engine() != v1::VLLM) continue;
    const std::string expected =
        profile.vendor() == v1::AMD ? kHipVisibleDevices : kCudaVisibleDevices;
    if (profile.visible_devices_env() == expected) continue;
    findings->Add(
        v1::PREFLIGHT_FAIL,
        absl::StrCat("profile ", name, " (", v1::Vendor_Name(profile.vendor()), ") pins GPUs with ",
                     profile.visible_devices_env(), "; vLLM's ", v1::Vendor_Name(profile.vendor()),
                     " platform reads ", expected),
        absl::StrCat("set \"visible_devices_env\": \"", expected, "\" in ", name, ".json"), {name});
  }
}

// NVML numbers GPUs by PCI bus; CUDA, unless told, fastest first: the same index names another
// GPU when the models differ.
void CheckDeviceOrder(const std::vector<v1::GpuInfo>& offered, PreflightProbes& probes,
                      const std::vector<std::string>& profiles, FindingList* findings) {
  std::set<std::string> models;
  for (const v1::GpuInfo& gpu : offered) {
    if (gpu.vendor() == v1::NVIDIA) models.insert(gpu.name());
  }
  if (models.size() < 2 || probes.GetEnv(kCudaDeviceOrder).value_or("") == "PCI_BUS_ID") return;
  findings->Add(v1::PREFLIGHT_WARN,
                absl::StrCat("GPUs of ", models.size(), " models (", absl::StrJoin(models, ", "),
                             ") and CUDA_DEVICE_ORDER is not PCI_BUS_ID: CUDA numbers them fastest "
                             "first, NVML by PCI bus, so a replica's index may name another GPU"),
                "set CUDA_DEVICE_ORDER=PCI_BUS_ID in the agent's environment", profiles);
}

}  // namespace

GpuFindings ReadGpus(PreflightProbes& probes, const std::vector<v1::GpuInfo>& configured) {
  GpuFindings findings;
  findings.nvidia = probes.ReadNvidiaGpus();
  findings.amd = probes.ReadAmdGpus();
  findings.offered = configured;
  if (configured.empty()) {
    for (const telemetry::GpuReading& reading : findings.nvidia.gpus) {
      v1::GpuInfo& gpu = findings.offered.emplace_back();
      gpu.set_index(reading.index);
      gpu.set_vendor(v1::NVIDIA);
      gpu.set_name(reading.name);
      if (reading.memory_total_bytes) gpu.set_memory_bytes(*reading.memory_total_bytes);
    }
  }
  return findings;
}

v1::PreflightCheck CheckNvidia(const GpuFindings& gpus, const tiers::ProfileSet& profiles) {
  constexpr char kName[] = "gpu.nvidia";
  const NvidiaGpus& nvml = gpus.nvidia;
  const std::vector<std::string> engines = EngineProfiles(profiles, v1::NVIDIA);
  if (!nvml.available) {
    // No library: no NVIDIA driver on this node. A library that does not initialise: a driver
    // that is broken or not loaded (a container without its GPUs).
    if (nvml.reason.rfind("cannot load", 0) == 0) {
      return Skip(kName, absl::StrCat("no NVIDIA GPU: NVML not loadable (", nvml.reason, ")"));
    }
    FindingList findings;
    findings.Add(v1::PREFLIGHT_FAIL, absl::StrCat("NVML loads but cannot be used: ", nvml.reason),
                 "check the driver with nvidia-smi; in a container, start it with the GPUs "
                 "(--gpus all / the NVIDIA container runtime)",
                 engines);
    return findings.ToCheck(kName);
  }
  const std::string driver =
      absl::StrCat("driver ", nvml.driver_version.empty() ? "unknown" : nvml.driver_version,
                   ", CUDA ", nvml.cuda_version.empty() ? "unknown" : nvml.cuda_version);
  if (nvml.gpus.empty()) {
    return Skip(kName, absl::StrCat("no NVIDIA GPU: NVML (", driver, ") reports none"));
  }
  std::vector<std::string> broken;
  for (const telemetry::GpuReading& gpu : nvml.gpus) {
    if (gpu.name.empty() && !gpu.errors.empty()) {
      broken.push_back(absl::StrCat(gpu.index, " (", gpu.errors.front(), ")"));
    }
  }
  std::string detail = absl::StrCat(Plural(nvml.gpus.size(), "GPU"), ": ", Models(nvml.gpus), "; ",
                                    driver, " (NVML)");
  if (!broken.empty()) {
    FindingList findings;
    findings.Add(v1::PREFLIGHT_WARN,
                 absl::StrCat(detail, "; unusable: GPU ", absl::StrJoin(broken, ", ")),
                 "check those GPUs with nvidia-smi (a GPU that fell off the bus needs a reset) and "
                 "leave them out of the config's gpus");
    return findings.ToCheck(kName);
  }
  const std::vector<int> offered = OfferedIndices(gpus.offered, v1::NVIDIA);
  if (offered.empty() && !engines.empty()) {
    return Warn(kName, absl::StrCat(detail, "; none offered, so no vLLM replica gets one"),
                "name the GPUs to use: kvctl run --gpus 0,1,...; kv-agent: the config's gpus");
  }
  return CheckOfferedAgainstFound(kName, detail, offered, nvml.gpus.size(), "NVML", engines);
}

v1::PreflightCheck CheckAmd(const GpuFindings& gpus, const tiers::ProfileSet& profiles) {
  constexpr char kName[] = "gpu.amd";
  const std::vector<std::string> engines = EngineProfiles(profiles, v1::AMD);
  if (!gpus.amd.ok()) {
    const absl::Status& status = gpus.amd.status();
    if (absl::IsNotFound(status)) {
      return Skip(kName, "no AMD GPU: neither amd-smi nor rocm-smi is on PATH");
    }
    if (absl::IsFailedPrecondition(status)) {
      return Skip(kName, absl::StrCat("no AMD GPU: ", status.message()));
    }
    FindingList findings;
    findings.Add(v1::PREFLIGHT_FAIL, absl::StrCat("amd-smi failed: ", status.message()),
                 "check the ROCm install with amd-smi (or rocm-smi) as the agent's user", engines);
    return findings.ToCheck(kName);
  }
  if (gpus.amd->empty()) return Skip(kName, "no AMD GPU: amd-smi reports none");
  const std::string detail =
      absl::StrCat(Plural(gpus.amd->size(), "GPU"), ": ", Models(*gpus.amd), " (amd-smi)");
  const std::vector<int> offered = OfferedIndices(gpus.offered, v1::AMD);
  if (offered.empty()) {
    return Warn(kName, absl::StrCat(detail, "; none offered: the agent discovers NVIDIA GPUs only"),
                "list the AMD GPUs in the config's gpus ({\"index\": 0, \"vendor\": \"AMD\", "
                "\"name\": ..., \"memory_bytes\": ...})");
  }
  return CheckOfferedAgainstFound(kName, detail, offered, gpus.amd->size(), "amd-smi", engines);
}

v1::PreflightCheck CheckVisibleDevices(const GpuFindings& gpus, const tiers::ProfileSet& profiles,
                                       PreflightProbes& probes) {
  constexpr char kName[] = "gpu.visible_devices";
  FindingList findings;
  CheckProfileVariables(profiles, &findings);
  const std::vector<int> nvidia = OfferedIndices(gpus.offered, v1::NVIDIA);
  const std::vector<int> amd = OfferedIndices(gpus.offered, v1::AMD);
  if (!nvidia.empty()) {
    const std::vector<std::string> engines = EngineProfiles(profiles, v1::NVIDIA);
    CompareVisible(kCudaVisibleDevices, nvidia, probes, engines, &findings);
    CheckDeviceOrder(gpus.offered, probes, engines, &findings);
  }
  if (!amd.empty()) {
    const std::vector<std::string> engines = EngineProfiles(profiles, v1::AMD);
    CompareVisible(kHipVisibleDevices, amd, probes, engines, &findings);
    if (std::optional<std::string> rocr = probes.GetEnv(kRocrVisibleDevices)) {
      findings.Add(v1::PREFLIGHT_FAIL,
                   absl::StrCat(kRocrVisibleDevices, "=", *rocr,
                                " in the agent's environment renumbers the GPUs HIP sees: a "
                                "replica's HIP_VISIBLE_DEVICES index would name another GPU"),
                   absl::StrCat("start kv-agent without ", kRocrVisibleDevices,
                                " and list its GPUs in the config's gpus"),
                   engines);
    }
  }
  if (nvidia.empty() && amd.empty()) {
    std::vector<std::string> set;
    for (const char* variable : {kCudaVisibleDevices, kHipVisibleDevices, kRocrVisibleDevices}) {
      if (std::optional<std::string> value = probes.GetEnv(variable)) {
        set.push_back(absl::StrCat(variable, "=", *value));
      }
    }
    findings.Add(v1::PREFLIGHT_SKIP,
                 set.empty() ? "no GPU offered: nothing to pin"
                             : absl::StrCat("no GPU offered (", absl::StrJoin(set, ", "), ")"));
  }
  return findings.ToCheck(kName);
}

}  // namespace kvbench::agent::preflight
