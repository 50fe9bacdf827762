#include "agent/tiers/profile_validator.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kvbench::agent::tiers {
namespace {

// POSIX shell variable names: what a child's environment can be given reliably.
bool IsEnvName(const std::string& name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

void ValidateName(const v1::Profile& profile, const std::optional<std::string>& expected,
                  FieldErrors* errors) {
  if (expected.has_value() && profile.name() != *expected) {
    const std::string what =
        profile.name().empty() ? "is missing" : absl::StrCat("\"", profile.name(), "\"");
    errors->Add("name",
                absl::StrCat(what, ": must be the file's name without .json, \"", *expected, "\""));
  } else if (profile.name().empty()) {
    errors->Add("name", "is required");
  }
}

void ValidateCommand(const v1::Profile& profile, FieldErrors* errors) {
  if (profile.command().empty()) {
    errors->Add("command",
                "is required: the program and its subcommand, e.g. "
                "[\"vllm\", \"serve\"]");
  }
  for (int i = 0; i < profile.command_size(); ++i) {
    if (profile.command(i).empty()) {
      errors->Add(absl::StrCat("command[", i, "]"), "must not be empty");
    }
  }
  for (int i = 0; i < profile.extra_args_size(); ++i) {
    if (!absl::StartsWith(profile.extra_args(i), "--")) {
      errors->Add(absl::StrCat("extra_args[", i, "]"),
                  absl::StrCat("\"", profile.extra_args(i),
                               "\" must start with \"--\" (write a flag's value as --flag=value)"));
    }
  }
}

void ValidateEngine(const v1::Profile& profile, FieldErrors* errors) {
  if (profile.engine() == v1::ENGINE_UNSPECIFIED) {
    errors->Add("engine", "is required for an ENGINE profile: VLLM or SIM");
  }
  if (!profile.tiers().empty()) errors->Add("tiers", "is only for CACHE_SERVER profiles");
  if (profile.engine() != v1::VLLM) return;
  if (profile.vendor() == v1::VENDOR_UNSPECIFIED) {
    errors->Add("vendor", "is required for a VLLM profile: NVIDIA or AMD");
  }
  if (profile.visible_devices_env().empty()) {
    errors->Add("visible_devices_env",
                "is required for a VLLM profile: CUDA_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES");
  }
}

// A dotted Python module name, as vLLM passes it to importlib.import_module.
bool IsModulePath(const std::string& path) {
  bool word_start = true;
  for (const char c : path) {
    if (c == '.') {
      if (word_start) return false;
      word_start = true;
      continue;
    }
    const bool letter = absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_';
    if (!letter && (word_start || !absl::ascii_isdigit(static_cast<unsigned char>(c)))) {
      return false;
    }
    word_start = false;
  }
  return !path.empty() && !word_start;
}

void ValidateConnectorModule(const v1::Profile& profile, FieldErrors* errors) {
  const std::string& module = profile.kv_connector_module_path();
  if (module.empty()) return;
  if (profile.role() != v1::ENGINE) {
    errors->Add("kv_connector_module_path", "is only for ENGINE profiles");
  } else if (!IsModulePath(module)) {
    errors->Add("kv_connector_module_path",
                absl::StrCat("\"", module,
                             "\" is not a Python module path, e.g. "
                             "\"lmcache.integration.vllm.lmcache_mp_connector\""));
  }
}

void ValidateCacheServer(const v1::Profile& profile, FieldErrors* errors) {
  if (profile.tiers().empty()) {
    errors->Add("tiers", "is required for a CACHE_SERVER profile: CPU_RAM and/or NVME");
  }
  std::set<int> seen;
  for (int i = 0; i < profile.tiers_size(); ++i) {
    const v1::Tier tier = profile.tiers(i);
    const std::string field = absl::StrCat("tiers[", i, "]");
    if (tier != v1::CPU_RAM && tier != v1::NVME) {
      errors->Add(field,
                  absl::StrCat(v1::Tier_Name(tier), " has no cache server: CPU_RAM or NVME"));
    } else if (!seen.insert(tier).second) {
      errors->Add(field, absl::StrCat(v1::Tier_Name(tier), " is listed twice"));
    }
  }
}

void ValidateEnvironment(const v1::Profile& profile, FieldErrors* errors) {
  for (const auto& [name, value] : profile.env()) {
    if (!IsEnvName(name)) {
      errors->Add(absl::StrCat("env.", name),
                  "is not a valid variable name ([A-Za-z_][A-Za-z0-9_]*)");
    }
  }
  const std::string& devices = profile.visible_devices_env();
  if (!devices.empty() && !IsEnvName(devices)) {
    errors->Add("visible_devices_env", absl::StrCat("\"", devices, "\" is not a variable name"));
  }
  if (profile.has_ready_timeout_s() &&
      !(profile.ready_timeout_s() > 0 && profile.ready_timeout_s() <= kMaxReadyTimeoutSeconds)) {
    errors->Add("ready_timeout_s", absl::StrCat(profile.ready_timeout_s(), " must be in (0, ",
                                                kMaxReadyTimeoutSeconds, "] seconds"));
  }
}

}  // namespace

FieldErrors ValidateProfile(const v1::Profile& profile,
                            const std::optional<std::string>& expected_name) {
  FieldErrors errors;
  ValidateName(profile, expected_name, &errors);
  switch (profile.role()) {
    case v1::ENGINE:
      ValidateEngine(profile, &errors);
      break;
    case v1::CACHE_SERVER:
      ValidateCacheServer(profile, &errors);
      break;
    default:
      errors.Add("role", "is required: ENGINE or CACHE_SERVER");
      break;
  }
  ValidateCommand(profile, &errors);
  ValidateEnvironment(profile, &errors);
  ValidateConnectorModule(profile, &errors);
  return errors;
}

}  // namespace kvbench::agent::tiers
