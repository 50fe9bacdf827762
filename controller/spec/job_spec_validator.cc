#include "controller/spec/job_spec_validator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "controller/spec/job_spec_defaults.h"
#include "controller/spec/search_spec_validator.h"

namespace kvbench::spec {
namespace {

using v1::JobSpec;

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

void CheckIntRange(FieldErrors* errors, const std::string& field, int64_t value, int64_t min,
                   int64_t max) {
  if (value < min || value > max) {
    errors->Add(field,
                absl::StrCat(value, " is out of range: must be between ", min, " and ", max));
  }
}

// [min, max], finite.
void CheckRange(FieldErrors* errors, const std::string& field, double value, double min,
                double max) {
  if (!std::isfinite(value) || value < min || value > max) {
    errors->Add(field,
                absl::StrCat(value, " is out of range: must be between ", min, " and ", max, " s"));
  }
}

// (min, max]: a positive amount.
void CheckPositive(FieldErrors* errors, const std::string& field, double value, double max,
                   absl::string_view unit) {
  if (!std::isfinite(value) || value <= 0 || value > max) {
    errors->Add(field, absl::StrCat(value, " is out of range: must be greater than 0 and at most ",
                                    max, unit.empty() ? "" : " ", unit));
  }
}

// One segment of a model id or path: letters, digits, '.', '_', '-', '+', starting with a letter,
// a digit or '_' (never '-'), not "." or "..".
bool IsModelSegment(absl::string_view segment) {
  if (segment.empty() || segment == "." || segment == "..") return false;
  const auto first = static_cast<unsigned char>(segment.front());
  if (!absl::ascii_isalnum(first) && first != '_') return false;
  return std::all_of(segment.begin(), segment.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
           c == '+';
  });
}

void ValidateIdentity(const JobSpec& spec, FieldErrors* errors) {
  if (spec.name().empty()) {
    errors->Add("name", "is required (letters, digits, '-', '_', '.')");
  } else if (spec.name().size() > kMaxNameLength ||
             !std::all_of(spec.name().begin(), spec.name().end(), IsNameChar)) {
    errors->Add("name", absl::StrCat("\"", spec.name(), "\" must be 1 to ", kMaxNameLength,
                                     " letters, digits, '-', '_' or '.'"));
  }
  if (spec.model().empty()) {
    errors->Add("model", "is required (the model id as the engine names it)");
  } else if (absl::Status model = CheckModelName(spec.model()); !model.ok()) {
    errors->Add("model", std::string(model.message()));
  }
  if (spec.build() == v1::VENDOR_UNSPECIFIED) errors->Add("build", "is required: NVIDIA or AMD");
  if (spec.engine() == v1::ENGINE_UNSPECIFIED) errors->Add("engine", "is required: vllm or sim");
}

void ValidateTiers(const JobSpec& spec, FieldErrors* errors) {
  if (spec.tiers().empty()) {
    errors->Add("tiers", "must list at least one of GPU, CPU_RAM, NVME");
    return;
  }
  std::map<int, int> first_index;
  for (int i = 0; i < spec.tiers_size(); ++i) {
    int tier = spec.tiers(i);
    auto [it, inserted] = first_index.emplace(tier, i);
    if (!inserted) {
      errors->Add(absl::StrCat("tiers[", i, "]"),
                  absl::StrCat(v1::Tier_Name(spec.tiers(i)), " is listed twice (also tiers[",
                               it->second, "]); each tier appears once"));
    }
  }
}

void ValidateTopology(const JobSpec& spec, FieldErrors* errors) {
  if (spec.has_replicas()) CheckIntRange(errors, "replicas", spec.replicas(), 1, kMaxReplicas);
  // JSON names are checked when converted; a proto-submitted spec can carry any number.
  if (!v1::OffloadRouting_IsValid(spec.offload_routing())) {
    errors->Add("offload_routing",
                absl::StrCat(spec.offload_routing(), " is not one of LEAST_CONN, STICKY"));
  }
  if (spec.has_tensor_parallel_size()) {
    CheckIntRange(errors, "tensor_parallel_size", spec.tensor_parallel_size(), 1,
                  kMaxTensorParallelSize);
  }
}

// Why `path` (absolute, or with a ".." part) is refused, and how to name the same file: relative
// to a dataset folder, which for a file of one's own is `--dataset-mirror DIR` (the
// docs/kvctl.md says kvctl run accepts "a path of your own", so a bare refusal leaves one stuck).
std::string DatasetPathProblem(const std::string& path) {
  std::string problem = absl::StrCat(
      "\"", path,
      "\" must be relative to a dataset folder (no leading '/', no '..'): the agent's "
      "dataset_cache_dir or dataset_mirror, $KV_DATASET_MIRROR, or for kvctl run and plan "
      "--dataset-mirror DIR or the folder kvctl runs in");
  const std::string file = std::string(absl::StripSuffix(path, "/"));
  const size_t slash = file.rfind('/');
  if (path.front() != '/' || slash == std::string::npos || slash + 1 == file.size() ||
      absl::StrContains(file, "/../") || absl::EndsWith(file, "/..")) {
    return problem;
  }
  absl::StrAppend(&problem, "; for this file: \"path\": \"", file.substr(slash + 1),
                  "\" with --dataset-mirror ", slash == 0 ? "/" : file.substr(0, slash));
  return problem;
}

void ValidateDataset(const JobSpec& spec, FieldErrors* errors) {
  if (!spec.has_dataset() || spec.dataset().code().empty()) {
    errors->Add("dataset.code",
                absl::StrCat("is required: one of ", absl::StrJoin(KnownDatasetCodes(), ", ")));
    return;
  }
  const std::string& code = spec.dataset().code();
  const auto& known = KnownDatasetCodes();
  if (std::find(known.begin(), known.end(), code) == known.end()) {
    errors->Add("dataset.code",
                absl::StrCat("\"", code, "\" is not one of ", absl::StrJoin(known, ", ")));
  }
  const std::string& path = spec.dataset().path();
  if (path.empty()) return;
  std::vector<absl::string_view> parts = absl::StrSplit(path, '/');
  bool escapes = path.front() == '/' || std::any_of(parts.begin(), parts.end(),
                                                    [](absl::string_view p) { return p == ".."; });
  if (escapes || path.find('\0') != std::string::npos) {
    errors->Add("dataset.path", DatasetPathProblem(path));
  }
}

void ValidateConcurrency(const JobSpec& spec, FieldErrors* errors) {
  if (HasCapacitySearch(spec)) return;  // ValidateCapacitySearch's
  if (spec.concurrency().empty()) {
    errors->Add("concurrency", "must list at least one value (virtual users at once)");
    return;
  }
  std::map<int, int> first_index;
  for (int i = 0; i < spec.concurrency_size(); ++i) {
    std::string field = absl::StrCat("concurrency[", i, "]");
    int value = spec.concurrency(i);
    if (value < 1 || value > kMaxConcurrency) {
      CheckIntRange(errors, field, value, 1, kMaxConcurrency);
      continue;
    }
    auto [it, inserted] = first_index.emplace(value, i);
    if (!inserted) {
      errors->Add(field, absl::StrCat(value, " is a duplicate of concurrency[", it->second,
                                      "]; values must be distinct"));
    }
  }
}

void ValidateWorkload(const JobSpec& spec, FieldErrors* errors) {
  CheckIntRange(errors, "num_rounds", spec.num_rounds(), 1, kMaxNumRounds);
  if (spec.num_rounds() >= 1 && spec.num_rounds() < kMinChunkRounds &&
      UsesGenericLoader(spec.dataset().code())) {
    errors->Add("num_rounds", absl::StrCat(spec.num_rounds(), " is below the minimum chunk length ",
                                           kMinChunkRounds, " of dataset \"", spec.dataset().code(),
                                           "\": it would yield zero virtual users"));
  }
  ValidateConcurrency(spec, errors);
  CheckIntRange(errors, "isl", spec.isl(), 0, kMaxIsl);
  CheckIntRange(errors, "osl", spec.osl(), 0, kMaxOsl);
  if (spec.has_sessions()) {
    CheckIntRange(errors, "sessions", spec.sessions(), 1, kMaxSessions);
    int max_concurrency = 0;
    for (int c : spec.concurrency()) max_concurrency = std::max(max_concurrency, c);
    if (spec.sessions() >= 1 && spec.sessions() < max_concurrency && !HasCapacitySearch(spec)) {
      errors->Add("sessions",
                  absl::StrCat(spec.sessions(), " is below the largest concurrency ",
                               max_concurrency, ": that many users cannot keep every slot busy"));
    }
  }
  CheckIntRange(errors, "priority", spec.priority(), -kMaxPriority, kMaxPriority);
  if (spec.has_repeats()) CheckIntRange(errors, "repeats", spec.repeats(), 1, kMaxRepeats);
  ValidateCapacitySearch(spec, errors);
}

void ValidatePoolsAndSampling(const JobSpec& spec, FieldErrors* errors) {
  if (spec.has_cpu_pool_gb())
    CheckPositive(errors, "cpu_pool_gb", spec.cpu_pool_gb(), kMaxCpuPoolGb, "GB");
  if (spec.has_progress_timeout_s()) {
    CheckPositive(errors, "progress_timeout_s", spec.progress_timeout_s(),
                  kMaxProgressTimeoutSeconds, "s");
  }
  if (spec.has_max_duration_s()) {
    CheckPositive(errors, "max_duration_s", spec.max_duration_s(), kMaxDurationSeconds, "s");
  }
  if (spec.has_nvme_pool_gb()) {
    CheckPositive(errors, "nvme_pool_gb", spec.nvme_pool_gb(), kMaxNvmePoolGb, "GB");
  }
  const v1::SamplingSpec& sampling = spec.sampling();
  double period = sampling.has_period_s() ? sampling.period_s() : kDefaultSamplingPeriodSeconds;
  if (sampling.has_period_s()) {
    CheckRange(errors, "sampling.period_s", period, kMinSamplingPeriodSeconds,
               kMaxSamplingPeriodSeconds);
  }
  if (sampling.has_rate_window_s()) {
    double window = sampling.rate_window_s();
    CheckPositive(errors, "sampling.rate_window_s", window, kMaxRateWindowSeconds, "s");
    if (window > 0 && window < period) {
      errors->Add("sampling.rate_window_s",
                  absl::StrCat(window, " s is shorter than the sampling period ", period,
                               " s: a rate needs at least two samples in its window"));
    }
  }
}

// Label keys and values, for the job's labels and the agent labels a placement selects by.
void ValidateLabelMap(const google::protobuf::Map<std::string, std::string>& labels,
                      const std::string& prefix, FieldErrors* errors) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : labels) keys.push_back(key);
  std::sort(keys.begin(), keys.end());  // map order is unspecified; report deterministically
  for (const std::string& key : keys) {
    const std::string& value = labels.at(key);
    std::string field = absl::StrCat(prefix, key);
    bool key_ok = !key.empty() && key.size() <= kMaxLabelKeyLength &&
                  std::all_of(key.begin(), key.end(), [](char c) {
                    return absl::ascii_islower(static_cast<unsigned char>(c)) ||
                           absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == '_' ||
                           c == '-' || c == '.' || c == '/';
                  });
    if (!key_ok) {
      errors->Add(field, absl::StrCat("label keys must be 1 to ", kMaxLabelKeyLength,
                                      " lowercase letters, digits, '_', '-', '.', '/'"));
    }
    if (value.size() > kMaxLabelValueLength) {
      errors->Add(field, absl::StrCat("label values must be at most ", kMaxLabelValueLength,
                                      " characters"));
    }
  }
}

void ValidateLabels(const JobSpec& spec, FieldErrors* errors) {
  ValidateLabelMap(spec.labels(), "labels.", errors);
}

void ValidatePlacement(const JobSpec& spec, FieldErrors* errors) {
  if (!spec.has_placement()) return;
  const v1::Placement& placement = spec.placement();
  ValidateLabelMap(placement.agent_labels(), "placement.agent_labels.", errors);
  if (placement.has_agent_wait_s()) {
    CheckPositive(errors, "placement.agent_wait_s", placement.agent_wait_s(), kMaxAgentWaitSeconds,
                  "s");
  }
}

void ValidateEngineOverrides(const JobSpec& spec, FieldErrors* errors) {
  if (!spec.has_engine_overrides()) return;
  const v1::EngineOverrides& overrides = spec.engine_overrides();
  if (overrides.has_num_gpu_blocks()) {
    CheckIntRange(errors, "engine_overrides.num_gpu_blocks", overrides.num_gpu_blocks(), 1,
                  100000000);
  }
  if (overrides.has_gpu_memory_utilization()) {
    CheckPositive(errors, "engine_overrides.gpu_memory_utilization",
                  overrides.gpu_memory_utilization(), 1.0, "");
  }
  if (overrides.has_max_model_len()) {
    CheckIntRange(errors, "engine_overrides.max_model_len", overrides.max_model_len(), 1, kMaxIsl);
  }
  if (overrides.has_max_num_seqs()) {
    CheckIntRange(errors, "engine_overrides.max_num_seqs", overrides.max_num_seqs(), 1,
                  kMaxConcurrency);
  }
  if (overrides.has_sim_time_scale()) {
    CheckPositive(errors, "engine_overrides.sim_time_scale", overrides.sim_time_scale(),
                  kMaxSimTimeScale, "");
    if (spec.engine() == v1::VLLM) {
      errors->Add("engine_overrides.sim_time_scale",
                  "applies only to the sim engine; a real vLLM runs in real time");
    }
  }
}

}  // namespace

absl::Status CheckModelName(const std::string& model) {
  if (model.size() > kMaxModelLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("must be at most ", kMaxModelLength, " characters"));
  }
  const bool path = absl::StartsWith(model, "/");
  std::vector<absl::string_view> segments =
      absl::StrSplit(path ? absl::string_view(model).substr(1) : absl::string_view(model), '/');
  const bool segments_ok = std::all_of(segments.begin(), segments.end(), IsModelSegment);
  if (path && segments_ok) return absl::OkStatus();
  if (!path && segments_ok && segments.size() <= 2) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "\"", absl::CHexEscape(model),
      "\" is neither a model id (\"org/name\": letters, digits, '.', '_', '-', '+', each part "
      "starting with a letter or digit) nor an absolute path to a checkpoint under the agent's "
      "model_roots (no '.' or '..' parts); it may not start with '-'"));
}

const std::vector<std::string>& KnownDatasetCodes() {
  static const std::vector<std::string> codes = {"sammshen", "tau2-bench-v1", "lmcache-agent-trace",
                                                 "openai-messages", "sharegpt"};
  return codes;
}

bool UsesGenericLoader(const std::string& dataset_code) { return dataset_code != "sammshen"; }

FieldErrors ValidateJobSpec(const JobSpec& spec) {
  FieldErrors errors;
  ValidateIdentity(spec, &errors);
  ValidateTiers(spec, &errors);
  ValidateTopology(spec, &errors);
  ValidateDataset(spec, &errors);
  ValidateWorkload(spec, &errors);
  ValidatePoolsAndSampling(spec, &errors);
  ValidateLabels(spec, &errors);
  ValidatePlacement(spec, &errors);
  ValidateEngineOverrides(spec, &errors);
  return errors;
}

}  // namespace kvbench::spec
