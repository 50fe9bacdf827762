// kvctl: the operator's client. One file per subcommand (kvctl/commands/); see docs/kvctl.md.

#include "common/cli/command_line.h"
#include "common/status/exit_code.h"
#include "controller/kvctl/kvctl_command.h"

int main(int argc, char** argv) {
  using namespace kvbench;
  CLI::App app{"kvctl: plan, run and read kvbench KV-cache offload benchmarks"};
  app.require_subcommand(1);
  kvctl::KvctlContext context;
  kvctl::AddAllCommands(&app, &context);
  if (int code = ParseCommandLine(&app, argc, argv); code >= 0) return code;
  absl::Status status = context.action();
  if (!status.ok()) *context.err << "kvctl: " << status.message() << "\n";
  return ExitCodeForStatus(status);
}
