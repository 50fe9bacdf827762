#include "tests/component/controller/kvctl/kvctl_test_helpers.h"

#include <sstream>

#include "common/status/exit_code.h"
#include "controller/kvctl/kvctl_command.h"

namespace kvbench::testing {

KvctlRun RunKvctl(const std::vector<std::string>& args,
                  const std::map<std::string, std::string>& env, absl::Time now) {
  CLI::App app{"kvctl"};
  app.require_subcommand(1);
  std::ostringstream out, err;
  kvctl::KvctlContext context;
  context.out = &out;
  context.err = &err;
  context.getenv = [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  context.now = [now] { return now; };
  kvctl::AddAllCommands(&app, &context);
  // CLI11's vector form takes the arguments reversed.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    return {2, "", error.what()};
  }
  absl::Status status = context.action();
  if (!status.ok()) err << "kvctl: " << status.message() << "\n";
  return {ExitCodeForStatus(status), out.str(), err.str()};
}

int Count(const std::string& haystack, const std::string& needle) {
  int count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

}  // namespace kvbench::testing
