#pragma once

// One preflight check (release.proto PreflightCheck) as the checks build it and the printers and
// the agent read it.

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::agent::preflight {

// The check `name` passed; `detail` says what was found.
v1::PreflightCheck Ok(absl::string_view name, std::string detail);
// Not applicable on this node (no GPU of that vendor, no NVMe dir).
v1::PreflightCheck Skip(absl::string_view name, std::string detail);
// Works, but a measurement may suffer: `remedy` says what to do.
v1::PreflightCheck Warn(absl::string_view name, std::string detail, std::string remedy);
// A scenario of `tiers` (empty: every tier) that runs one of `profiles` (empty: any) would fail
// or be invalid here.
v1::PreflightCheck Fail(absl::string_view name, std::string detail, std::string remedy,
                        std::vector<v1::Tier> tiers = {}, std::vector<std::string> profiles = {});

// "OK", "WARN", "FAIL", "SKIP".
const char* StatusWord(v1::PreflightStatus status);
// What a FAIL keeps off the node: "NVME", "every tier", "every tier of vllm-nvidia",
// "NVME of lmcache-nvme".
std::string KeptOff(const v1::PreflightCheck& check);

bool AnyFail(const std::vector<v1::PreflightCheck>& checks);
// The checks that do not pass (WARN and FAIL), in order: what a heartbeat carries.
std::vector<v1::PreflightCheck> NotPassing(const std::vector<v1::PreflightCheck>& checks);

}  // namespace kvbench::agent::preflight
