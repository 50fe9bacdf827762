#include "agent/telemetry/launcher_command_runner.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/telemetry/proc_file.h"

namespace kvbench::telemetry {
namespace {

std::string BaseName(const std::string& program) {
  const size_t slash = program.rfind('/');
  return slash == std::string::npos ? program : program.substr(slash + 1);
}

// Distinguishes the output files of commands run at the same time.
std::atomic<uint64_t> next_run_id{0};

// OK when `process` exits 0 within `timeout`; otherwise why not, after stopping it if it still
// runs.
absl::Status WaitForExit(Process& process, const std::vector<std::string>& argv,
                         absl::Duration timeout) {
  absl::StatusOr<ExitStatus> ended = process.Wait(timeout);
  if (absl::IsDeadlineExceeded(ended.status())) {
    (void)process.Stop(kCommandStopGrace);
    return absl::DeadlineExceededError(absl::StrCat(
        absl::StrJoin(argv, " "), " did not finish within ", absl::FormatDuration(timeout)));
  }
  if (!ended.ok()) return ended.status();
  if (ended->success()) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat(absl::StrJoin(argv, " "), " ", ended->ToString(), ": ",
                   absl::StrJoin(process.LogTail(kCommandErrorTailLines), " | ")));
}

absl::StatusOr<std::string> Run(ProcessLauncher& launcher, const std::string& scratch_dir,
                                absl::Duration timeout, const std::vector<std::string>& argv) {
  if (argv.empty()) return absl::InvalidArgumentError("empty command");
  ProcessSpec spec;
  spec.name = BaseName(argv[0]);
  spec.argv = argv;
  const std::string stem = absl::StrCat(scratch_dir, "/", spec.name, "-", next_run_id++);
  spec.stdout_path = stem + ".out";
  spec.stderr_path = stem + ".err";
  const auto remove_files = [&spec] {
    std::remove(spec.stdout_path.c_str());
    std::remove(spec.stderr_path.c_str());
  };
  remove_files();  // the launcher appends: start from empty files
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Launch(spec);
  if (!process.ok()) {
    remove_files();  // the launcher may have created them before failing to start the program
    return process.status();
  }

  const absl::Status outcome = WaitForExit(**process, argv, timeout);
  absl::StatusOr<std::string> output = ReadProcFile(spec.stdout_path);
  remove_files();
  if (!outcome.ok()) return outcome;
  return output;
}

}  // namespace

CommandRunner LauncherCommandRunner(ProcessLauncher* launcher, std::string scratch_dir,
                                    absl::Duration timeout) {
  return [launcher, scratch_dir = std::move(scratch_dir),
          timeout](const std::vector<std::string>& argv) {
    return Run(*launcher, scratch_dir, timeout, argv);
  };
}

}  // namespace kvbench::telemetry
