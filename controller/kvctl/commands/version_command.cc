// kvctl version: the client's version and the revision it was built from.

#include <nlohmann/json.hpp>

#include "common/version/version.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"

namespace kvbench::kvctl {

void AddVersionCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand("version", "Print kvctl's version");
  auto format = std::make_shared<OutputFormat>(OutputFormat::kTable);
  AddOutputOption(command, format.get(), {OutputFormat::kTable, OutputFormat::kJson});
  command->callback([context, format] {
    context->action = [context, format]() -> absl::Status {
      if (*format == OutputFormat::kJson) {
        *context->out << nlohmann::json{{"version", kVersion}, {"revision", kGitRevision}}.dump()
                      << "\n";
      } else {
        *context->out << "kvctl " << kVersion << " (" << kGitRevision << ")\n";
      }
      return absl::OkStatus();
    };
  });
}

}  // namespace kvbench::kvctl
