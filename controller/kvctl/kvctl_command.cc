#include "controller/kvctl/kvctl_command.h"

namespace kvbench::kvctl {

void AddAllCommands(CLI::App* app, KvctlContext* context) {
  AddVersionCommand(app, context);
  AddPlanCommand(app, context);
  AddRunCommand(app, context);
}

}  // namespace kvbench::kvctl
