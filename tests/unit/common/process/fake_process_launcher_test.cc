// The controls of FakeProcessLauncher / FakeProcess, which unit tests of supervisors rely on.

#include "tests/fakes/fake_process_launcher.h"

#include <signal.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "tests/support/exit_status_string_maker.h"

namespace kvbench::testing {
namespace {

ProcessSpec Spec(const std::string& name, const std::string& program) {
  ProcessSpec spec;
  spec.name = name;
  spec.argv = {program, "--flag"};
  return spec;
}

std::unique_ptr<Process> Launch(FakeProcessLauncher& launcher, const ProcessSpec& spec) {
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Launch(spec);
  REQUIRE(process.ok());
  return std::move(*process);
}

constexpr ExitStatus kKilledByTerm{true, 0, SIGTERM};
constexpr ExitStatus kKilledByKill{true, 0, SIGKILL};

TEST_CASE("FakeProcessLauncher records every spec and counts pids up", "[fake_process]") {
  FakeProcessLauncher launcher;
  launcher.SetLaunchError("broken", absl::NotFoundError("no broken"));
  std::unique_ptr<Process> a = Launch(launcher, Spec("a", "server"));
  CHECK(launcher.Launch(Spec("b", "broken")).status().code() == absl::StatusCode::kNotFound);
  CHECK(launcher.Launch(ProcessSpec{}).status().code() == absl::StatusCode::kInvalidArgument);
  std::unique_ptr<Process> c = Launch(launcher, Spec("c", "server"));

  const std::vector<ProcessSpec> launched = launcher.launched();
  REQUIRE(launched.size() == 4);
  CHECK(launched[0].name == "a");
  CHECK(launched[1].argv == std::vector<std::string>{"broken", "--flag"});
  CHECK(a->pid() == FakeProcessLauncher::kFirstPid);
  CHECK(c->pid() == FakeProcessLauncher::kFirstPid + 1);
  REQUIRE(launcher.processes().size() == 2);
  CHECK(launcher.last_process()->name() == "c");
  CHECK(launcher.last_process("a")->pid() == a->pid());
  CHECK(launcher.last_process("b") == nullptr);

  launcher.SetLaunchError("broken", absl::OkStatus());
  CHECK(launcher.Launch(Spec("b", "broken")).ok());
}

TEST_CASE("FakeProcess ends only when the test says so", "[fake_process]") {
  FakeProcessLauncher launcher;
  std::unique_ptr<Process> process = Launch(launcher, Spec("server", "server"));
  std::shared_ptr<FakeProcess> fake = launcher.last_process();
  CHECK_FALSE(process->TryWait().has_value());
  CHECK(process->Wait(absl::Hours(1)).status().code() == absl::StatusCode::kDeadlineExceeded);

  fake->Exit(ExitStatus{false, 3, 0});
  fake->Exit(ExitStatus{false, 4, 0});  // the first exit wins
  CHECK(process->TryWait() == ExitStatus{false, 3, 0});
  CHECK(process->Wait(absl::ZeroDuration()).value() == ExitStatus{false, 3, 0});
  CHECK_FALSE(fake->running());
}

TEST_CASE("FakeProcess Stop ends in SIGTERM or in SIGKILL when TERM is ignored", "[fake_process]") {
  FakeProcessLauncher launcher;
  std::unique_ptr<Process> process = Launch(launcher, Spec("server", "server"));
  std::shared_ptr<FakeProcess> fake = launcher.last_process();

  SECTION("TERM obeyed") {
    CHECK(process->Stop(absl::Seconds(5)).value() == kKilledByTerm);
    CHECK(fake->signals() == std::vector<int>{SIGTERM});
  }
  SECTION("TERM ignored") {
    fake->IgnoreTerm(true);
    CHECK(process->Stop(absl::Seconds(5)).value().ToString() == "killed by signal 9 (SIGKILL)");
    CHECK(fake->signals() == std::vector<int>{SIGTERM, SIGKILL});
  }
  SECTION("Stop fails") {
    fake->SetStopError(absl::DeadlineExceededError("group still has members"));
    CHECK(process->Stop(absl::Seconds(5)).status().code() == absl::StatusCode::kDeadlineExceeded);
    CHECK(fake->running());
  }
  CHECK(fake->stop_graces() == std::vector<absl::Duration>{absl::Seconds(5)});
}

TEST_CASE("FakeProcess records signals and only TERM and KILL end it", "[fake_process]") {
  FakeProcessLauncher launcher;
  std::unique_ptr<Process> process = Launch(launcher, Spec("server", "server"));
  std::shared_ptr<FakeProcess> fake = launcher.last_process();
  REQUIRE(process->Signal(SIGHUP).ok());
  REQUIRE(process->Signal(0).ok());
  CHECK(fake->running());
  REQUIRE(process->Signal(SIGTERM).ok());
  REQUIRE(process->Signal(SIGKILL).ok());
  CHECK(fake->exit_status() == kKilledByTerm);
  CHECK(fake->signals() == std::vector<int>{SIGHUP, SIGTERM, SIGKILL});
}

TEST_CASE("FakeProcess is killed when its running handle is destroyed", "[fake_process]") {
  FakeProcessLauncher launcher;
  std::unique_ptr<Process> running = Launch(launcher, Spec("running", "server"));
  std::unique_ptr<Process> exited = Launch(launcher, Spec("exited", "server"));
  std::shared_ptr<FakeProcess> running_fake = launcher.last_process("running");
  std::shared_ptr<FakeProcess> exited_fake = launcher.last_process("exited");
  exited_fake->Exit(ExitStatus{false, 0, 0});

  running.reset();
  exited.reset();
  CHECK(running_fake->released());
  CHECK(running_fake->exit_status() == kKilledByKill);
  CHECK(running_fake->signals() == std::vector<int>{SIGKILL});
  CHECK(exited_fake->released());
  CHECK(exited_fake->exit_status() == ExitStatus{false, 0, 0});
  CHECK(exited_fake->signals().empty());
}

TEST_CASE("FakeProcessLauncher scripts programs and FakeProcess serves a log tail",
          "[fake_process]") {
  FakeProcessLauncher launcher;
  FakeProcessLauncher::Program crasher;
  crasher.exit_on_launch = ExitStatus{true, 0, SIGSEGV};
  crasher.log_tail = {"starting", "loading model", "segfault"};
  launcher.SetProgram("crasher", crasher);
  FakeProcessLauncher::Program stubborn;
  stubborn.ignore_term = true;
  launcher.SetProgram("stubborn", stubborn);

  std::unique_ptr<Process> crashed = Launch(launcher, Spec("c", "crasher"));
  CHECK(crashed->TryWait() == ExitStatus{true, 0, SIGSEGV});
  CHECK(crashed->LogTail(2) == std::vector<std::string>{"loading model", "segfault"});
  CHECK(crashed->LogTail(10).size() == 3);

  std::unique_ptr<Process> held = Launch(launcher, Spec("s", "stubborn"));
  CHECK(held->Stop(absl::Milliseconds(200)).value() == kKilledByKill);

  launcher.last_process("s")->SetLogTail({"a", "b"});
  CHECK(held->LogTail(1) == std::vector<std::string>{"b"});
}

}  // namespace
}  // namespace kvbench::testing
