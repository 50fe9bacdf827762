// LauncherCommandRunner over the real PosixProcessLauncher, with /bin/sh as the command.

#include "agent/telemetry/launcher_command_runner.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/process/posix_process_launcher.h"
#include "tests/support/temp_dir.h"

namespace kvbench::telemetry {
namespace {

using ::kvbench::testing::TempDir;

TEST_CASE("LauncherCommandRunner: stdout back, failures mapped, no files left behind") {
  TempDir dir;
  PosixProcessLauncher launcher;
  CommandRunner run = LauncherCommandRunner(&launcher, dir.path());

  SECTION("stdout of a successful command, stderr not mixed in") {
    absl::StatusOr<std::string> out =
        run({"/bin/sh", "-c", "printf '[{\"gpu\": 0}]\\n'; echo noise >&2"});
    REQUIRE(out.ok());
    CHECK(*out == "[{\"gpu\": 0}]\n");
  }
  SECTION("a program not on PATH: NOT_FOUND") {
    CHECK(absl::IsNotFound(run({"kvbench-no-such-smi", "--json"}).status()));
  }
  SECTION("non-zero exit: UNAVAILABLE with the exit status and stderr") {
    absl::StatusOr<std::string> out = run({"/bin/sh", "-c", "echo 'no GPU found' >&2; exit 3"});
    CHECK(absl::IsUnavailable(out.status()));
    CHECK_THAT(std::string(out.status().message()),
               Catch::Contains("exited with code 3") && Catch::Contains("no GPU found"));
  }
  SECTION("too slow: stopped, DEADLINE_EXCEEDED") {
    CommandRunner impatient = LauncherCommandRunner(&launcher, dir.path(), absl::Milliseconds(50));
    absl::StatusOr<std::string> out = impatient({"/bin/sh", "-c", "exec sleep 30"});
    CHECK(absl::IsDeadlineExceeded(out.status()));
  }
  SECTION("an empty command: INVALID_ARGUMENT") {
    CHECK(absl::IsInvalidArgument(run({}).status()));
  }
  CHECK(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace kvbench::telemetry
