#pragma once

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace kvbench::kvctl {

// What a subcommand writes to and the action it chose. Each subcommand lives in its own file and
// registers itself with Add*Command(app, context); parsing sets `action`, main runs it and maps
// its Status to the exit code (common/status/exit_code.h).
struct KvctlContext {
  std::ostream* out = &std::cout;
  std::ostream* err = &std::cerr;
  std::function<absl::Status()> action;
  // The environment (KV_CONTROLLER, KV_TOKEN, ...); nullopt when unset. Tests pass their own.
  std::function<std::optional<std::string>(const std::string&)> getenv =
      [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
  // Wall clock, for ages ("heartbeat 3s ago"). Tests pass a fixed one.
  std::function<absl::Time()> now = [] { return absl::Now(); };
};

void AddVersionCommand(CLI::App* app, KvctlContext* context);
void AddPlanCommand(CLI::App* app, KvctlContext* context);
void AddRunCommand(CLI::App* app, KvctlContext* context);
// `kvctl doctor`: the preflight of kvctl run's host.
void AddDoctorCommand(CLI::App* app, KvctlContext* context);
// Remote subcommands: they talk to a kv-controller (connection_flags.h).
void AddSubmitCommand(CLI::App* app, KvctlContext* context);
void AddJobsCommand(CLI::App* app, KvctlContext* context);
void AddStatusCommand(CLI::App* app, KvctlContext* context);
void AddWatchCommand(CLI::App* app, KvctlContext* context);
void AddResultsCommand(CLI::App* app, KvctlContext* context);
void AddCancelCommand(CLI::App* app, KvctlContext* context);
void AddAgentsCommand(CLI::App* app, KvctlContext* context);
// `kvctl schedule create|list|show|pause|resume|delete|run-now`.
void AddScheduleCommand(CLI::App* app, KvctlContext* context);
// `kvctl history`.
void AddHistoryCommand(CLI::App* app, KvctlContext* context);
void AddCompareCommand(CLI::App* app, KvctlContext* context);
// `kvctl diff A B`, `kvctl baseline set|show|clear`, `kvctl alerts`.
void AddDiffCommand(CLI::App* app, KvctlContext* context);
void AddBaselineCommand(CLI::App* app, KvctlContext* context);
void AddAlertsCommand(CLI::App* app, KvctlContext* context);
void AddReportCommand(CLI::App* app, KvctlContext* context);
// `kvctl export JOB|DIR --format llmd-br-0.2.1`.
void AddExportCommand(CLI::App* app, KvctlContext* context);
// Local: the dataset registry and cache (agent/datasets/registry).
void AddDatasetCommand(CLI::App* app, KvctlContext* context);
// `kvctl dataset cat` under the `dataset` command.
void AddDatasetCatCommand(CLI::App* dataset, KvctlContext* context);

// Adds `--set KEY=VALUE` (repeatable) to a command that reads a spec file: a variation without
// editing the JSON (controller/spec/spec_overrides.h).
void AddSpecSetOption(CLI::App* command, std::vector<std::string>* sets);

// Builds the whole kvctl command tree; tests drive it with their own streams.
void AddAllCommands(CLI::App* app, KvctlContext* context);

}  // namespace kvbench::kvctl
