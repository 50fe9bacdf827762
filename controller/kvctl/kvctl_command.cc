#include "controller/kvctl/kvctl_command.h"

namespace kvbench::kvctl {

void AddSpecSetOption(CLI::App* command, std::vector<std::string>* sets) {
  command->add_option("--set", *sets,
                      "Override a spec field, KEY=VALUE (a dotted path; VALUE as JSON, else a "
                      "string), e.g. --set engine_overrides.num_gpu_blocks=64 --set "
                      "concurrency=[2,8]; repeatable, applied in order");
}

void AddAllCommands(CLI::App* app, KvctlContext* context) {
  AddVersionCommand(app, context);
  AddPlanCommand(app, context);
  AddRunCommand(app, context);
  AddDoctorCommand(app, context);
  AddSubmitCommand(app, context);
  AddJobsCommand(app, context);
  AddStatusCommand(app, context);
  AddWatchCommand(app, context);
  AddResultsCommand(app, context);
  AddCancelCommand(app, context);
  AddAgentsCommand(app, context);
  AddScheduleCommand(app, context);
  AddHistoryCommand(app, context);
  AddCompareCommand(app, context);
  AddDiffCommand(app, context);
  AddBaselineCommand(app, context);
  AddAlertsCommand(app, context);
  AddReportCommand(app, context);
  AddExportCommand(app, context);
  AddDatasetCommand(app, context);
}

}  // namespace kvbench::kvctl
