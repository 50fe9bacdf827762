#include "agent/release/launcher_probe_runner.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kvbench::agent::release {
namespace {

constexpr absl::Duration kProbeStopGrace = absl::Seconds(1);
constexpr size_t kProbeErrorTailLines = 5;

std::atomic<uint64_t> next_probe_id{0};

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<ProbeOutput> RunProbe(ProcessLauncher& launcher, const std::string& scratch_dir,
                                     absl::Duration timeout, const std::vector<std::string>& argv,
                                     const std::map<std::string, std::string>& env) {
  if (argv.empty()) return absl::InvalidArgumentError("empty command");
  std::error_code ignored;
  std::filesystem::create_directories(scratch_dir, ignored);  // the launcher reports a failure
  ProcessSpec spec;
  spec.name = "release-probe";
  spec.argv = argv;
  spec.env = env;
  const std::string stem = absl::StrCat(scratch_dir, "/release-probe-", next_probe_id++);
  spec.stdout_path = stem + ".out";
  spec.stderr_path = stem + ".err";
  const auto remove_files = [&spec] {
    std::remove(spec.stdout_path.c_str());
    std::remove(spec.stderr_path.c_str());
  };
  remove_files();
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Launch(spec);
  if (!process.ok()) {
    remove_files();
    return process.status();
  }
  absl::StatusOr<ExitStatus> ended = (*process)->Wait(timeout);
  absl::Status outcome;
  if (absl::IsDeadlineExceeded(ended.status())) {
    (void)(*process)->Stop(kProbeStopGrace);
    outcome = absl::DeadlineExceededError(
        absl::StrCat("did not finish within ", absl::FormatDuration(timeout)));
  } else if (!ended.ok()) {
    outcome = ended.status();
  } else if (!ended->success()) {
    outcome = absl::UnavailableError(absl::StrCat(
        ended->ToString(), ": ", absl::StrJoin((*process)->LogTail(kProbeErrorTailLines), " | ")));
  }
  ProbeOutput output{ReadWhole(spec.stdout_path), ReadWhole(spec.stderr_path)};
  remove_files();
  if (!outcome.ok()) return outcome;
  return output;
}

}  // namespace

ProbeRunner LauncherProbeRunner(ProcessLauncher* launcher, std::string scratch_dir) {
  return
      [launcher, scratch_dir = std::move(scratch_dir)](
          const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
          absl::Duration timeout) { return RunProbe(*launcher, scratch_dir, timeout, argv, env); };
}

}  // namespace kvbench::agent::release
