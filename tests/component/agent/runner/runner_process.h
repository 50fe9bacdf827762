#pragma once

// kv-runner as a child process for the component tests: its stdout and stderr in `dir`
// (runner.out, runner.err).

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "common/process/posix_process_launcher.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {

inline std::unique_ptr<Process> LaunchRunner(const std::vector<std::string>& argv,
                                             const TempDir& dir) {
  PosixProcessLauncher launcher;
  ProcessSpec spec;
  spec.name = "kv-runner";
  spec.argv = argv;
  spec.stdout_path = dir.File("runner.out");
  spec.stderr_path = dir.File("runner.err");
  auto process = launcher.Launch(spec);
  REQUIRE(process.ok());
  return std::move(*process);
}

}  // namespace kvbench::testing
