// /proc/stat and /proc/<pid>/stat: parsers on real-shaped text, the readers on temp files and on
// this machine's live /proc.

#include "agent/telemetry/proc_stat.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "absl/status/status.h"
#include "tests/support/temp_dir.h"

namespace kvbench::telemetry {
namespace {

using ::kvbench::testing::TempDir;

// A 5.x kernel's /proc/stat, trimmed to two CPUs.
constexpr char kProcStat[] =
    "cpu  10132153 290696 3084719 46828483 16683 0 25195 17 0 0\n"
    "cpu0 1393280 32966 572056 13343292 6130 0 17875 5 0 0\n"
    "cpu1 1335678 31522 404839 13464716 2418 0 3412 3 0 0\n"
    "intr 1462898 114 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "ctxt 115315133\n"
    "btime 1700000000\n"
    "processes 86031\n"
    "procs_running 2\n"
    "procs_blocked 0\n"
    "softirq 12345 0 1 2 3 4 5 6 7 8 9\n";

TEST_CASE("ParseProcStatCpu reads the aggregate cpu line, not cpu0") {
  absl::StatusOr<CpuTimes> times = ParseProcStatCpu(kProcStat);
  REQUIRE(times.ok());
  CHECK(times->user == 10132153);
  CHECK(times->nice == 290696);
  CHECK(times->system == 3084719);
  CHECK(times->idle == 46828483);
  CHECK(times->iowait == 16683);
  CHECK(times->irq == 0);
  CHECK(times->softirq == 25195);
  CHECK(times->steal == 17);
}

TEST_CASE("ParseProcStatCpu table") {
  struct Case {
    const char* name;
    const char* text;
    bool ok;
    uint64_t idle;
    uint64_t steal;
  };
  const Case cases[] = {
      {"2.4 kernel: 4 fields, the rest 0", "cpu 1 2 3 4\n", true, 4, 0},
      {"2.6.11+: 8 fields", "cpu 1 2 3 4 5 6 7 8\n", true, 4, 8},
      {"counters near 2^64", "cpu 1 2 3 18446744073709551615 5 6 7 8 9 10\n", true,
       18446744073709551615ULL, 8},
      {"cpu line not first", "intr 1 2\ncpu 9 9 9 40 9 9 9 50\n", true, 40, 50},
      {"too few fields", "cpu 1 2 3\n", false, 0, 0},
      {"not a number", "cpu 1 2 x 4\n", false, 0, 0},
      {"negative", "cpu 1 2 -3 4\n", false, 0, 0},
      {"only per-cpu lines", "cpu0 1 2 3 4\ncpu1 1 2 3 4\n", false, 0, 0},
      {"empty", "", false, 0, 0},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    absl::StatusOr<CpuTimes> times = ParseProcStatCpu(c.text);
    REQUIRE(times.ok() == c.ok);
    if (c.ok) {
      CHECK(times->idle == c.idle);
      CHECK(times->steal == c.steal);
    } else {
      CHECK(absl::IsInvalidArgument(times.status()));
    }
  }
}

TEST_CASE("ParseProcPidStat counts fields after the last ')' of comm") {
  struct Case {
    const char* name;
    const char* text;
    uint64_t utime;
    uint64_t stime;
  };
  // Fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
  //         utime stime cutime cstime ...
  const Case cases[] = {
      {"plain", "4242 (vllm) S 1 4242 4242 0 -1 4194560 1000 0 3 0 1234 567 10 20 20 0 8 0", 1234,
       567},
      {"spaces in comm", "77 (my server) R 1 77 77 0 -1 0 1 2 3 4 11 22 0 0 20 0 1 0", 11, 22},
      {"')' and '(' in comm", "78 (a) b (c)) S 1 78 78 0 -1 0 1 2 3 4 31 32 0 0 20 0 1 0", 31, 32},
      {"comm looks like fields", "79 () 1 2 3 4) S 1 79 79 0 -1 0 1 2 3 4 41 42 0 0 20 0 1 0", 41,
       42},
      {"trailing newline", "80 (x) S 1 80 80 0 -1 0 1 2 3 4 51 52 0 0 20 0 1 0\n", 51, 52},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    absl::StatusOr<ProcessCpuTicks> ticks = ParseProcPidStat(c.text);
    REQUIRE(ticks.ok());
    CHECK(ticks->utime == c.utime);
    CHECK(ticks->stime == c.stime);
    CHECK(ticks->total() == c.utime + c.stime);
  }
}

TEST_CASE("ParseProcPidStat rejects text without ')' or with too few fields") {
  for (const char* text : {"", "4242 vllm S 1 2 3", "4242 (vllm) S 1 4242 4242 0 -1 0 1 2 3 4 5",
                           "4242 (vllm) S 1 4242 4242 0 -1 0 1 2 3 4 x 6"}) {
    INFO(text);
    CHECK(absl::IsInvalidArgument(ParseProcPidStat(text).status()));
  }
}

TEST_CASE("the readers on temp files: parse, prefix errors with the path, NOT_FOUND if absent") {
  TempDir dir;
  absl::StatusOr<CpuTimes> times = ReadCpuTimes(dir.WriteFile("stat", kProcStat));
  REQUIRE(times.ok());
  CHECK(times->user == 10132153);

  const std::string broken = dir.WriteFile("broken", "cpu 1 2\n");
  absl::StatusOr<CpuTimes> bad = ReadCpuTimes(broken);
  CHECK(absl::IsInvalidArgument(bad.status()));
  CHECK_THAT(std::string(bad.status().message()), Catch::StartsWith(broken + ": "));

  absl::StatusOr<ProcessCpuTicks> ticks = ReadProcessCpuTicks(
      dir.WriteFile("pid_stat", "9 (kv agent) S 1 9 9 0 -1 0 1 2 3 4 100 200 0 0 20 0 1 0\n"));
  REQUIRE(ticks.ok());
  CHECK(ticks->total() == 300);

  absl::StatusOr<ProcessCpuTicks> gone = ReadProcessCpuTicks(dir.File("no-such-pid-stat"));
  CHECK(absl::IsNotFound(gone.status()));
  CHECK_THAT(std::string(gone.status().message()), Catch::Contains("no-such-pid-stat"));
}

TEST_CASE("this machine's /proc/stat and our own /proc/<pid>/stat parse") {
  absl::StatusOr<CpuTimes> times = ReadCpuTimes();
  INFO(times.status().ToString());
  REQUIRE(times.ok());
  CHECK(times->user + times->system + times->idle > 0);

  CHECK(ProcPidStatPath(4242) == "/proc/4242/stat");
  absl::StatusOr<ProcessCpuTicks> ours = ReadProcessCpuTicks(ProcPidStatPath(::getpid()));
  INFO(ours.status().ToString());
  CHECK(ours.ok());

  // Above PID_MAX_LIMIT (2^22): no such process can exist, as when one has exited.
  CHECK(absl::IsNotFound(ReadProcessCpuTicks(ProcPidStatPath((1 << 22) + 1)).status()));
}

}  // namespace
}  // namespace kvbench::telemetry
