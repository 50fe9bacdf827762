// Supervisor::Stop, StopAll, the destructor and KillOrphans against real process groups.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/supervisor/pid_file.h"
#include "agent/supervisor/process_group.h"
#include "agent/supervisor/supervisor.h"
#include "common/process/posix_process_launcher.h"
#include "tests/component/agent/supervisor/supervisor_test_helpers.h"

namespace kvbench::agent::testing {
namespace {

// One child of a scenario: a leader that forks a grandchild into its group, then waits.
struct Family {
  std::string name;
  int leader = 0;
  int grandchild = 0;
};

std::vector<std::string> FamilyArgs(const TempDir& dir, const std::string& name) {
  return {"--spawn-grandchild", dir.File(name + ".grandchild"), "--ready-file",
          dir.File(name + ".ready"), "--wait"};
}

// Waits until the family started as `name` is set up and reads its pids.
Family AwaitFamily(const TempDir& dir, const std::string& name, int leader) {
  REQUIRE(WaitFor([&] { return FileExists(dir.File(name + ".ready")); }, kLongWait));
  const std::optional<int> grandchild = ParsePid(dir.ReadFile(name + ".grandchild"));
  REQUIRE(grandchild.has_value());
  return Family{name, leader, *grandchild};
}

Family StartFamily(Supervisor& supervisor, const TempDir& dir, const std::string& name) {
  REQUIRE(supervisor.Start(name, ChildArgv(FamilyArgs(dir, name)), {}).ok());
  return AwaitFamily(dir, name, *supervisor.pid(name));
}

TEST_CASE("Supervisor StopAll stops children in reverse start order and leaves nothing running",
          "[supervisor]") {
  SubreaperScope subreaper;  // as in the agent: orphaned grandchildren are ours to reap
  SupervisorWorld world;
  CapturedLog log;
  auto supervisor = world.Make();
  std::vector<Family> families;
  for (const std::string name : {"cache-server", "replica-0", "proxy"}) {
    families.push_back(StartFamily(*supervisor, world.dir, name));
  }

  REQUIRE(supervisor->StopAll().ok());
  const std::vector<std::string> stopped = log.LinesWith("child stopped");
  REQUIRE(stopped.size() == 3);
  CHECK(absl::StrContains(stopped[0], "name=proxy "));
  CHECK(absl::StrContains(stopped[1], "name=replica-0 "));
  CHECK(absl::StrContains(stopped[2], "name=cache-server "));
  for (const Family& family : families) {
    INFO(family.name);
    CHECK(ProcessGone(family.leader));
    CHECK(ProcessGone(family.grandchild));
    CHECK_FALSE(FileExists(world.pid_file(family.name)));
  }
  CHECK(supervisor->names().empty());
  CHECK(supervisor->StopAll().ok());  // idempotent
  CHECK(log.LinesWith("child stopped").size() == 3);
}

TEST_CASE("Supervisor Stop kills a child that ignores SIGTERM after the grace", "[supervisor]") {
  SupervisorWorld world;
  CapturedLog log;
  auto supervisor = world.Make(kShortGrace);
  const std::string ready = world.dir.File("stubborn.ready");
  REQUIRE(supervisor
              ->Start("stubborn", ChildArgv({"--ignore-term", "--ready-file", ready, "--wait"}), {})
              .ok());
  REQUIRE(WaitFor([&] { return FileExists(ready); }, kLongWait));  // TERM is ignored from here
  const int pid = *supervisor->pid("stubborn");

  REQUIRE(supervisor->Stop("stubborn").ok());
  const std::vector<std::string> stopped = log.LinesWith("child stopped");
  REQUIRE(stopped.size() == 1);
  CHECK(absl::StrContains(stopped[0], "name=stubborn "));
  CHECK(absl::StrContains(stopped[0], "killed by signal 9 (SIGKILL)"));
  CHECK(ProcessGone(pid));
  CHECK_FALSE(FileExists(world.pid_file("stubborn")));
  CHECK(supervisor->Stop("stubborn").code() == absl::StatusCode::kNotFound);
}

TEST_CASE("Supervisor destroyed stops its children and removes their pid files", "[supervisor]") {
  SubreaperScope subreaper;
  SupervisorWorld world;
  Family family;
  {
    auto supervisor = world.Make();
    family = StartFamily(*supervisor, world.dir, "replica-0");
    CHECK(FileExists(world.pid_file("replica-0")));
  }
  CHECK(ProcessGone(family.leader));
  CHECK(ProcessGone(family.grandchild));
  CHECK_FALSE(FileExists(world.pid_file("replica-0")));
}

TEST_CASE("Supervisor KillOrphans kills the groups a crashed supervisor left", "[supervisor]") {
  SubreaperScope subreaper;  // the orphans are reparented to this process, as to the agent
  SupervisorWorld world;
  const pid_t crashed = ::fork();
  REQUIRE(crashed >= 0);
  if (crashed == 0) {
    // The agent before its crash: starts a child, then dies without stopping anything. Its
    // children get SIGTERM then (the launcher's parent-death signal); this one ignores it, as a
    // hung engine would, so only the next start's sweep ends it.
    Supervisor* supervisor = world.Make().release();
    std::vector<std::string> args = FamilyArgs(world.dir, "replica-0");
    args.insert(args.begin(), "--ignore-term");
    const absl::Status started = supervisor->Start("replica-0", ChildArgv(args), {});
    // Dies once the child ignores SIGTERM (it is set up when its ready file exists).
    const bool ready =
        started.ok() &&
        WaitFor([&] { return FileExists(world.dir.File("replica-0.ready")); }, kLongWait);
    ::_exit(ready ? 0 : 1);
  }
  int wait_status = 0;
  REQUIRE(::waitpid(crashed, &wait_status, 0) == crashed);
  REQUIRE((WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0));
  const absl::StatusOr<PidFileRecord> record = ReadPidFile(world.dir.File("run/replica-0.pid"));
  REQUIRE(record.ok());
  const std::optional<int> leader = record->pid;
  REQUIRE(leader.has_value());
  const Family family = AwaitFamily(world.dir, "replica-0", *leader);
  CHECK_FALSE(ProcessGone(family.leader));

  CHECK(world.KillOrphans(world.run_dir()) == 1);
  CHECK(ProcessGone(family.leader));  // killed and, being ours now, reaped
  CHECK(ProcessGone(family.grandchild));
  CHECK_FALSE(FileExists(world.pid_file("replica-0")));
  CHECK(world.KillOrphans(world.run_dir()) == 0);
}

// A pid that no process can have: pids stay below /proc/sys/kernel/pid_max.
int ImpossiblePid() {
  std::ifstream in("/proc/sys/kernel/pid_max");
  int pid_max = 0;
  in >> pid_max;
  REQUIRE(pid_max > 1);
  return pid_max;
}

// Supervisor::KillOrphans over real time (the orphans here are real processes).
int KillOrphansOnRealTime(const std::string& run_dir) {
  RealClock clock;
  RealSleeper sleeper;
  return Supervisor::KillOrphans(run_dir, &clock, &sleeper);
}

TEST_CASE("Supervisor KillOrphans removes unusable pid files without killing", "[supervisor]") {
  TempDir run;
  PosixProcessLauncher launcher;
  ProcessSpec spec;
  spec.name = "bystander";
  spec.argv = ChildArgv({"--ready-file", run.File("bystander.ready"), "--wait"});
  auto bystander = launcher.Launch(spec);
  REQUIRE(bystander.ok());
  REQUIRE(WaitFor([&] { return FileExists(run.File("bystander.ready")); }, kLongWait));

  run.WriteFile("garbage.pid", "replica\n");
  run.WriteFile("empty.pid", "");
  run.WriteFile("zero.pid", "0\n");
  run.WriteFile("negative.pid", "-7\n");
  run.WriteFile("self.pid", absl::StrCat(::getpgrp(), "\n"));
  run.WriteFile("gone.pid", absl::StrCat(ImpossiblePid(), "\n"));
  // A live group whose leader started after its pid file was written: the pid was recycled.
  run.WriteFile("recycled.pid", absl::StrCat((*bystander)->pid(), "\n"));
  const timespec an_hour_ago[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
  REQUIRE(::utimensat(AT_FDCWD, run.File("recycled.pid").c_str(), an_hour_ago, 0) == 0);
  // A pid file honoured only for the process it was written for. The bystander's pid
  // with another start time (the pid was recycled), or with another program (a system pid file
  // under a work_dir of "/": sshd's /run/sshd.pid).
  const int64_t ticks = ProcessStartTicks((*bystander)->pid()).value();
  const std::string program = ProcessExecutable((*bystander)->pid());
  REQUIRE_FALSE(program.empty());
  run.WriteFile("reused.pid",
                absl::StrCat((*bystander)->pid(), "\n", ticks + 1, " ", program, "\n"));
  run.WriteFile("sshd.pid", absl::StrCat((*bystander)->pid(), "\n", ticks, " /usr/sbin/sshd\n"));
  run.WriteFile("notes.txt", "not a pid file");

  CHECK(KillOrphansOnRealTime(run.path()) == 0);
  CHECK(ListPidFiles(run.path()).empty());
  CHECK(FileExists(run.File("notes.txt")));
  CHECK_FALSE((*bystander)->TryWait().has_value());  // still running
  REQUIRE((*bystander)->Stop(kShortGrace).ok());
}

TEST_CASE("Supervisor KillOrphans of a missing run dir kills nothing", "[supervisor]") {
  TempDir dir;
  CHECK(KillOrphansOnRealTime(dir.File("no-such-dir")) == 0);
}

}  // namespace
}  // namespace kvbench::agent::testing
