#include "common/cli/command_line.h"

#include "common/status/exit_code.h"

namespace kvbench {

int ParseCommandLine(CLI::App* app, int argc, char** argv) {
  try {
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app->exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app->exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app->exit(version);
  } catch (const CLI::ParseError& error) {
    app->exit(error);
    return kExitInvalidArgument;
  }
  return -1;
}

}  // namespace kvbench
