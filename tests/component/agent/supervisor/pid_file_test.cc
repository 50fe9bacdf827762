// Pid files and the process-group helpers behind Supervisor::KillOrphans.

#include "agent/supervisor/pid_file.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/supervisor/process_group.h"
#include "tests/component/agent/supervisor/supervisor_test_helpers.h"

namespace kvbench::agent::testing {
namespace {

TEST_CASE("ParsePid accepts a pid above 1 and a final line break only", "[supervisor]") {
  struct Case {
    std::string text;
    std::optional<int> pid;
  };
  const std::vector<Case> cases = {
      {"1234\n", 1234},
      {"1234", 1234},
      {"2\n", 2},
      {"1\n", std::nullopt},
      {"0\n", std::nullopt},
      {"-7\n", std::nullopt},
      {"+7\n", std::nullopt},
      {"", std::nullopt},
      {"\n", std::nullopt},
      {" 12\n", std::nullopt},
      {"12 \n", std::nullopt},
      {"12\n\n", std::nullopt},
      {"12x\n", std::nullopt},
      {"99999999999999999999\n", std::nullopt},
  };
  for (const Case& c : cases) {
    INFO("text \"" << c.text << "\"");
    CHECK(ParsePid(c.text) == c.pid);
  }
}

TEST_CASE("WritePidFile and ReadPidFile round-trip through an atomic rename", "[supervisor]") {
  TempDir dir;
  const std::string path = dir.File("replica-0.pid");
  dir.WriteFile("replica-0.pid", "stale\n");
  const absl::Time before = absl::Now() - absl::Seconds(2);

  // A running process: its start ticks and program are recorded beside the pid.
  const int self = ::getpid();
  REQUIRE(WritePidFile(path, self).ok());
  const std::string program = ProcessExecutable(self);
  REQUIRE_FALSE(program.empty());
  CHECK(dir.ReadFile("replica-0.pid") ==
        absl::StrCat(self, "\n", ProcessStartTicks(self).value(), " ", program, "\n"));
  CHECK_FALSE(FileExists(path + ".tmp"));
  absl::StatusOr<PidFileRecord> record = ReadPidFile(path);
  REQUIRE(record.ok());
  CHECK(record->pid == self);
  CHECK(record->written >= before);
  CHECK(record->start_ticks == ProcessStartTicks(self));
  CHECK(record->executable == program);
  // An older agent's file, the pid alone, still reads.
  dir.WriteFile("replica-0.pid", "4321\n");
  record = ReadPidFile(path);
  REQUIRE(record.ok());
  CHECK(record->pid == 4321);
  CHECK_FALSE(record->start_ticks.has_value());
}

TEST_CASE("Pid file errors name the path", "[supervisor]") {
  TempDir dir;
  const absl::Status written = WritePidFile(dir.File("missing/x.pid"), 4321);
  CHECK(written.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(absl::StrContains(written.message(), dir.File("missing/x.pid")));

  CHECK(ReadPidFile(dir.File("none.pid")).status().code() == absl::StatusCode::kNotFound);
  dir.WriteFile("bad.pid", "1\n");
  const absl::Status bad = ReadPidFile(dir.File("bad.pid")).status();
  CHECK(bad.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(bad.message(), dir.File("bad.pid")));

  RemovePidFile(dir.File("none.pid"));  // a missing file is fine
}

TEST_CASE("ListPidFiles lists the *.pid files of a directory, sorted", "[supervisor]") {
  TempDir dir;
  for (const std::string name : {"proxy.pid", "cache-server.pid", "replica-0.pid.tmp", ".pid",
                                 "notes.txt", "sub/replica-1.pid"}) {
    dir.WriteFile(name, "");
  }
  CHECK(ListPidFiles(dir.path()) ==
        std::vector<std::string>{dir.File("cache-server.pid"), dir.File("proxy.pid")});
  CHECK(ListPidFiles(dir.File("no-such-dir")).empty());
}

TEST_CASE("ProcessStartTime reads when a process started", "[supervisor]") {
  const absl::Time before = absl::Now();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const absl::Time after = absl::Now();
  const std::optional<absl::Time> started = ProcessStartTime(child);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  REQUIRE(started.has_value());
  // /proc gives boot time in whole seconds: allow that much either way.
  CHECK(*started >= before - absl::Seconds(2));
  CHECK(*started <= after + absl::Seconds(2));
  CHECK(ProcessGroupExists(::getpgrp()));
  CHECK_FALSE(ProcessStartTime(child).has_value());
}

}  // namespace
}  // namespace kvbench::agent::testing
