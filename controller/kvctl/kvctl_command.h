#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>

#include "absl/status/status.h"

namespace kvbench::kvctl {

// What a subcommand writes to and the action it chose. Each subcommand lives in its own file and
// registers itself with Add*Command(app, context); parsing sets `action`, main runs it and maps
// its Status to the exit code (common/status/exit_code.h).
struct KvctlContext {
  std::ostream* out = &std::cout;
  std::ostream* err = &std::cerr;
  std::function<absl::Status()> action;
};

void AddVersionCommand(CLI::App* app, KvctlContext* context);
void AddPlanCommand(CLI::App* app, KvctlContext* context);
void AddRunCommand(CLI::App* app, KvctlContext* context);

// Builds the whole kvctl command tree; tests drive it with their own streams.
void AddAllCommands(CLI::App* app, KvctlContext* context);

}  // namespace kvbench::kvctl
