// PosixProcessLauncher and PosixProcess against the real scripted child (tests/tools).

#include "common/process/posix_process_launcher.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <climits>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/log/logging.h"
#include "tests/support/exit_status_string_maker.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench {
namespace {

using ::kvbench::testing::TempDir;
using ::kvbench::testing::WaitFor;

// Grace for children that ignore SIGTERM: short, since only SIGKILL will end them.
constexpr absl::Duration kShortGrace = absl::Milliseconds(200);
// Grace and waits that a passing test never uses up.
constexpr absl::Duration kLongWait = absl::Seconds(10);

ProcessSpec ChildSpec(const std::string& name, const std::vector<std::string>& args) {
  ProcessSpec spec;
  spec.name = name;
  spec.argv = {KV_TEST_CHILD_PATH};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  return spec;
}

std::unique_ptr<Process> Launch(const ProcessSpec& spec) {
  PosixProcessLauncher launcher;
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Launch(spec);
  INFO(process.status().ToString());
  REQUIRE(process.ok());
  return std::move(*process);
}

bool FileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// Reaped (by us or by init): no such process any more.
bool ProcessGone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

// No longer running: gone, or a zombie of someone else (init here) waiting to be reaped.
bool ProcessEnded(pid_t pid) {
  if (ProcessGone(pid)) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close_paren = text.rfind(')');
  return close_paren == std::string::npos || text.compare(close_paren, 3, ") Z") == 0;
}

// Waits for the ready file the child creates once set up, then reads the grandchild's pid file.
pid_t ReadyGrandchildPid(const TempDir& dir) {
  REQUIRE(WaitFor([&] { return FileExists(dir.File("ready")); }, kLongWait));
  const std::string text = dir.ReadFile("grandchild.pid");
  REQUIRE_FALSE(text.empty());
  return static_cast<pid_t>(std::stoi(text));
}

// A leader and a grandchild in one process group. The grandchild ignores SIGTERM; the leader
// too unless `leader_ignores_term` is false. Both wait for a signal.
ProcessSpec FamilySpec(const TempDir& dir, bool leader_ignores_term) {
  std::vector<std::string> args = {"--ignore-term", "--spawn-grandchild",
                                   dir.File("grandchild.pid")};
  if (!leader_ignores_term) args.push_back("--default-term");
  args.insert(args.end(), {"--ready-file", dir.File("ready"), "--wait"});
  return ChildSpec("family", args);
}

// Makes this test process the subreaper of its descendants while in scope: orphans of the
// children are reparented to it, so reaping them is our job.
class SubreaperScope {
 public:
  SubreaperScope() { REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0); }
  ~SubreaperScope() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
};

class CapturingSink : public LogSink {
 public:
  void Write(LogLevel, absl::string_view line) override {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.emplace_back(line);
  }
  std::vector<std::string> lines() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

std::string RealPath(const std::string& path) {
  char buffer[PATH_MAX];
  REQUIRE(::realpath(path.c_str(), buffer) != nullptr);
  return buffer;
}

ExitStatus Exited(int code) { return ExitStatus{false, code, 0}; }
ExitStatus Killed(int signal) { return ExitStatus{true, 0, signal}; }

TEST_CASE("Process ExitStatus::ToString names the code or the signal", "[process]") {
  CHECK(Exited(0).ToString() == "exited with code 0");
  CHECK(Exited(3).ToString() == "exited with code 3");
  CHECK(Killed(SIGKILL).ToString() == "killed by signal 9 (SIGKILL)");
  CHECK(Killed(SIGTERM).ToString() == "killed by signal 15 (SIGTERM)");
  CHECK(Killed(SIGRTMIN + 2).ToString() ==
        absl::StrCat("killed by signal ", SIGRTMIN + 2, " (SIGRTMIN+2)"));
  CHECK(Killed(200).ToString() == "killed by signal 200");
  CHECK(Exited(0).success());
  CHECK_FALSE(Exited(3).success());
  CHECK_FALSE(Killed(SIGTERM).success());
}

TEST_CASE("PosixProcess reports the child's exit code exactly", "[process]") {
  const int code = GENERATE(0, 3);
  std::unique_ptr<Process> process = Launch(ChildSpec("exiter", {"--exit", std::to_string(code)}));
  absl::StatusOr<ExitStatus> status = process->Wait(absl::InfiniteDuration());
  REQUIRE(status.ok());
  CHECK(*status == Exited(code));
  CHECK(process->TryWait() == Exited(code));
}

TEST_CASE("PosixProcess TryWait reports nothing while running and the exit once the child is gone",
          "[process]") {
  TempDir dir;
  std::unique_ptr<Process> process =
      Launch(ChildSpec("trywait", {"--ready-file", dir.File("ready"), "--wait"}));
  REQUIRE(WaitFor([&] { return FileExists(dir.File("ready")); }, kLongWait));
  CHECK_FALSE(process->TryWait().has_value());
  REQUIRE(process->Signal(SIGUSR1).ok());
  std::optional<ExitStatus> status;
  REQUIRE(WaitFor([&] { return (status = process->TryWait()).has_value(); }, kLongWait));
  CHECK(*status == Killed(SIGUSR1));
  CHECK(status->ToString() == "killed by signal 10 (SIGUSR1)");
}

TEST_CASE("PosixProcessLauncher logs one line per launch", "[process]") {
  auto sink = std::make_shared<CapturingSink>();
  std::shared_ptr<LogSink> previous = SetLogSink(sink);
  std::unique_ptr<Process> process = Launch(ChildSpec("logged", {"--exit", "0"}));
  SetLogSink(previous);
  REQUIRE(process->Wait(kLongWait).ok());
  const std::vector<std::string> lines = sink->lines();
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0],
             Catch::EndsWith(absl::StrCat("process started name=logged pid=", process->pid(),
                                          " argv0=", KV_TEST_CHILD_PATH)));
}

TEST_CASE("PosixProcessLauncher appends stdout and stderr to their files and LogTail reads stderr",
          "[process]") {
  TempDir dir;
  ProcessSpec spec = ChildSpec("writer", {"--print", "o1", "--print", "o2", "--eprint", "e1",
                                          "--eprint", "e2", "--eprint", "e3"});
  spec.stdout_path = dir.WriteFile("out.log", "earlier\n");
  spec.stderr_path = dir.File("err.log");
  std::unique_ptr<Process> process = Launch(spec);
  REQUIRE(process->Wait(kLongWait).ok());
  CHECK(dir.ReadFile("out.log") == "earlier\no1\no2\n");
  CHECK(dir.ReadFile("err.log") == "e1\ne2\ne3\n");
  CHECK(process->LogTail(2) == std::vector<std::string>{"e2", "e3"});
  CHECK(process->LogTail(10) == std::vector<std::string>{"e1", "e2", "e3"});
  CHECK(process->LogTail(0).empty());
}

TEST_CASE("PosixProcessLauncher sends both streams to the stdout file without a stderr path",
          "[process]") {
  TempDir dir;
  ProcessSpec spec = ChildSpec("shared", {"--print", "out", "--eprint", "err"});
  spec.stdout_path = dir.File("both.log");
  std::unique_ptr<Process> process = Launch(spec);
  REQUIRE(process->Wait(kLongWait).ok());
  CHECK(dir.ReadFile("both.log") == "out\nerr\n");
  CHECK(process->LogTail(1) == std::vector<std::string>{"err"});
}

TEST_CASE("PosixProcessLauncher discards output without log files and LogTail is empty",
          "[process]") {
  std::unique_ptr<Process> process = Launch(ChildSpec("quiet", {"--print", "x", "--eprint", "y"}));
  REQUIRE(process->Wait(kLongWait).ok());
  CHECK(process->LogTail(5).empty());
}

TEST_CASE("PosixProcess LogTail reads the last lines of a large log", "[process]") {
  TempDir dir;
  {
    std::ofstream big(dir.File("big.log"));
    for (int i = 0; i < 200000; ++i) big << "line " << i << "\n";  // ~2.2 MB
  }
  ProcessSpec spec = ChildSpec("big", {"--eprint", "tail-a", "--eprint", "tail-b"});
  spec.stdout_path = dir.File("big.log");
  std::unique_ptr<Process> process = Launch(spec);
  REQUIRE(process->Wait(kLongWait).ok());
  CHECK(process->LogTail(3) == std::vector<std::string>{"line 199999", "tail-a", "tail-b"});

  std::ofstream(dir.File("big.log"), std::ios::app) << "unterminated";
  CHECK(process->LogTail(2) == std::vector<std::string>{"tail-b", "unterminated"});
  const std::vector<std::string> capped = process->LogTail(1000000);
  CHECK(capped.size() < 200000);
  CHECK(capped.front().rfind("line ", 0) == 0);  // whole lines only
  CHECK(capped.back() == "unterminated");
}

TEST_CASE("PosixProcessLauncher inherits and overrides the environment or uses spec.env alone",
          "[process]") {
  TempDir dir;
  REQUIRE(::setenv("KV_PROCESS_TEST_INHERITED", "from-parent", 1) == 0);
  REQUIRE(::setenv("KV_PROCESS_TEST_OVERRIDDEN", "from-parent", 1) == 0);
  ProcessSpec spec = ChildSpec("env", {"--print-env", "KV_PROCESS_TEST_INHERITED", "--print-env",
                                       "KV_PROCESS_TEST_OVERRIDDEN", "--print-env", "KV_ONLY"});
  spec.env = {{"KV_PROCESS_TEST_OVERRIDDEN", "from-spec"}, {"KV_ONLY", "a b=c"}};
  spec.stdout_path = dir.File("out.log");

  SECTION("inherited plus overrides") {
    REQUIRE(Launch(spec)->Wait(kLongWait).ok());
    CHECK(dir.ReadFile("out.log") ==
          "KV_PROCESS_TEST_INHERITED=from-parent\nKV_PROCESS_TEST_OVERRIDDEN=from-spec\n"
          "KV_ONLY=a b=c\n");
  }
  SECTION("inherit_env=false") {
    spec.inherit_env = false;
    REQUIRE(Launch(spec)->Wait(kLongWait).ok());
    CHECK(dir.ReadFile("out.log") ==
          "KV_PROCESS_TEST_INHERITED unset\nKV_PROCESS_TEST_OVERRIDDEN=from-spec\n"
          "KV_ONLY=a b=c\n");
  }
  SECTION("unset_env removes an inherited variable") {
    spec.unset_env = {"KV_PROCESS_TEST_INHERITED", "KV_NEVER_SET"};
    REQUIRE(Launch(spec)->Wait(kLongWait).ok());
    CHECK(dir.ReadFile("out.log") ==
          "KV_PROCESS_TEST_INHERITED unset\nKV_PROCESS_TEST_OVERRIDDEN=from-spec\n"
          "KV_ONLY=a b=c\n");
  }
  SECTION("a variable both set and unset is refused") {
    spec.unset_env = {"KV_ONLY"};
    absl::Status status = PosixProcessLauncher().Launch(spec).status();
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(status.message()), Catch::Contains("KV_ONLY is both set and unset"));
  }
  ::unsetenv("KV_PROCESS_TEST_INHERITED");
  ::unsetenv("KV_PROCESS_TEST_OVERRIDDEN");
}

TEST_CASE("PosixProcessLauncher rejects an invalid environment variable name", "[process]") {
  ProcessSpec spec = ChildSpec("bad-env", {});
  spec.env = {{"A=B", "x"}};
  CHECK(PosixProcessLauncher().Launch(spec).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("PosixProcessLauncher runs the child in working_dir", "[process]") {
  TempDir dir;
  REQUIRE(::mkdir(dir.File("work").c_str(), 0755) == 0);
  ProcessSpec spec = ChildSpec("cwd", {"--print-cwd"});
  spec.working_dir = dir.File("work");
  spec.stdout_path = dir.File("out.log");
  REQUIRE(Launch(spec)->Wait(kLongWait).ok());
  CHECK(dir.ReadFile("out.log") == RealPath(dir.File("work")) + "\n");

  SECTION("a missing working_dir is an error naming it, not a missing program") {
    spec.working_dir = dir.File("absent");
    absl::Status status = PosixProcessLauncher().Launch(spec).status();
    CHECK(status.code() == absl::StatusCode::kInternal);
    CHECK_THAT(std::string(status.message()), Catch::Contains(dir.File("absent")));
  }
}

TEST_CASE("PosixProcessLauncher reports a program that cannot be run as NOT_FOUND naming it",
          "[process]") {
  TempDir dir;
  ProcessSpec spec;
  spec.name = "ghost";
  SECTION("a path that does not exist") { spec.argv = {dir.File("no-such-program")}; }
  SECTION("a name that is not on PATH") { spec.argv = {"kv-no-such-program-on-path"}; }
  SECTION("a file that is not executable") {
    spec.argv = {dir.WriteFile("not-executable", "#!/bin/sh\n")};
  }
  absl::Status status = PosixProcessLauncher().Launch(spec).status();
  CHECK(status.code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(status.message()), Catch::Contains("ghost"));
  CHECK_THAT(std::string(status.message()), Catch::Contains(spec.argv[0]));
}

TEST_CASE("PosixProcessLauncher: a child gets SIGTERM when the thread that launched it ends",
          "[process]") {
  // The agent's (or kvctl run's) death by SIGKILL ends its threads the same way: the children
  // do not outlive it.
  std::unique_ptr<Process> process;
  std::thread launching([&] { process = Launch(ChildSpec("bound", {"--wait"})); });
  launching.join();
  REQUIRE(process != nullptr);
  CHECK(process->Wait(kLongWait).value() == Killed(SIGTERM));
}

TEST_CASE("PosixProcessLauncher rejects an empty argv", "[process]") {
  ProcessSpec spec;
  spec.name = "nothing";
  CHECK(PosixProcessLauncher().Launch(spec).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("PosixProcess Wait times out on a running child and Stop ends it with SIGTERM",
          "[process]") {
  TempDir dir;
  std::unique_ptr<Process> process =
      Launch(ChildSpec("waiter", {"--ready-file", dir.File("ready"), "--wait"}));
  REQUIRE(WaitFor([&] { return FileExists(dir.File("ready")); }, kLongWait));
  CHECK(process->Wait(absl::Milliseconds(20)).status().code() ==
        absl::StatusCode::kDeadlineExceeded);
  CHECK(process->Wait(absl::ZeroDuration()).status().code() == absl::StatusCode::kDeadlineExceeded);

  absl::StatusOr<ExitStatus> stopped = process->Stop(kLongWait);
  REQUIRE(stopped.ok());
  CHECK(stopped->ToString() == "killed by signal 15 (SIGTERM)");
  CHECK(process->Wait(absl::ZeroDuration()).value() == Killed(SIGTERM));
  CHECK(process->Stop(kLongWait).value() == Killed(SIGTERM));  // again: the same status
  CHECK(ProcessGone(process->pid()));
}

TEST_CASE("PosixProcess Stop on a child that already exited returns its status", "[process]") {
  std::unique_ptr<Process> process = Launch(ChildSpec("done", {"--exit", "3"}));
  REQUIRE(process->Wait(kLongWait).ok());
  CHECK(process->Stop(kShortGrace).value() == Exited(3));
}

TEST_CASE("PosixProcess Stop kills a child that ignores SIGTERM after the grace", "[process]") {
  TempDir dir;
  std::unique_ptr<Process> process =
      Launch(ChildSpec("stubborn", {"--ignore-term", "--ready-file", dir.File("ready"), "--wait"}));
  REQUIRE(WaitFor([&] { return FileExists(dir.File("ready")); }, kLongWait));
  absl::StatusOr<ExitStatus> stopped = process->Stop(kShortGrace);
  REQUIRE(stopped.ok());
  CHECK(stopped->ToString() == "killed by signal 9 (SIGKILL)");
}

TEST_CASE("PosixProcess Stop leaves no member of the group running", "[process]") {
  TempDir dir;
  SECTION("the leader ignores SIGTERM too") {
    std::unique_ptr<Process> process = Launch(FamilySpec(dir, /*leader_ignores_term=*/true));
    const pid_t grandchild = ReadyGrandchildPid(dir);
    CHECK(process->Stop(kShortGrace).value() == Killed(SIGKILL));
    CHECK(ProcessEnded(grandchild));
  }
  SECTION("the leader obeys SIGTERM, the grandchild needs SIGKILL") {
    std::unique_ptr<Process> process = Launch(FamilySpec(dir, /*leader_ignores_term=*/false));
    const pid_t grandchild = ReadyGrandchildPid(dir);
    CHECK(process->Stop(kShortGrace).value() == Killed(SIGTERM));
    CHECK(ProcessEnded(grandchild));
  }
}

TEST_CASE("PosixProcess Stop in a subreaper reaps the orphaned members of the group", "[process]") {
  TempDir dir;
  SubreaperScope subreaper;
  std::unique_ptr<Process> process = Launch(FamilySpec(dir, /*leader_ignores_term=*/false));
  const pid_t grandchild = ReadyGrandchildPid(dir);
  CHECK(process->Stop(kShortGrace).value() == Killed(SIGTERM));
  CHECK(ProcessGone(grandchild));  // reaped, not left a zombie of ours
  CHECK(::waitpid(grandchild, nullptr, WNOHANG) == -1);
}

TEST_CASE("PosixProcess destroyed while running kills and reaps its group", "[process]") {
  TempDir dir;
  SECTION("an ordinary parent") {
    std::unique_ptr<Process> process = Launch(FamilySpec(dir, /*leader_ignores_term=*/true));
    const pid_t grandchild = ReadyGrandchildPid(dir);
    const pid_t leader = process->pid();
    process.reset();
    CHECK(ProcessGone(leader));
    CHECK(ProcessEnded(grandchild));
  }
  SECTION("a subreaper parent") {
    SubreaperScope subreaper;
    std::unique_ptr<Process> process = Launch(FamilySpec(dir, /*leader_ignores_term=*/true));
    const pid_t grandchild = ReadyGrandchildPid(dir);
    process.reset();
    CHECK(ProcessGone(grandchild));
  }
}

TEST_CASE("PosixProcess ends the members its exited leader left behind", "[process]") {
  TempDir dir;
  std::unique_ptr<Process> process = Launch(
      ChildSpec("orphaner", {"--spawn-grandchild", dir.File("grandchild.pid"), "--exit", "0"}));
  REQUIRE(process->Wait(kLongWait).value() == Exited(0));
  const pid_t grandchild = static_cast<pid_t>(std::stoi(dir.ReadFile("grandchild.pid")));
  CHECK_FALSE(ProcessEnded(grandchild));
  SECTION("on Stop") {
    CHECK(process->Stop(kLongWait).value() == Exited(0));
    CHECK(ProcessEnded(grandchild));
  }
  SECTION("on destruction") {
    process.reset();
    CHECK(ProcessEnded(grandchild));
  }
}

}  // namespace
}  // namespace kvbench
