#pragma once

// Shared set-up of the Supervisor component tests: real children (kv-test-child) through
// PosixProcessLauncher, real HTTP through CurlHttpClient, and a temporary work dir.

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "agent/supervisor/supervisor.h"
#include "common/http/curl_http_client.h"
#include "common/log/logging.h"
#include "common/process/posix_process_launcher.h"
#include "common/time/clock.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench::agent::testing {

using ::kvbench::testing::TempDir;
using ::kvbench::testing::WaitFor;

// Grace for children that ignore SIGTERM: short, since only SIGKILL will end them.
inline constexpr absl::Duration kShortGrace = absl::Milliseconds(200);
// Waits and deadlines that a passing test never uses up.
inline constexpr absl::Duration kLongWait = absl::Seconds(10);

// argv running kv-test-child with `args`.
inline std::vector<std::string> ChildArgv(std::vector<std::string> args) {
  args.insert(args.begin(), KV_TEST_CHILD_PATH);
  return args;
}

inline bool FileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// Reaped: no such process any more.
inline bool ProcessGone(int pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

// Makes this test process the subreaper of its descendants while in scope, as the agent is:
// orphans are reparented to it, so that their end can be checked without relying on init.
class SubreaperScope {
 public:
  SubreaperScope() { REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0); }
  ~SubreaperScope() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
  SubreaperScope(const SubreaperScope&) = delete;
  SubreaperScope& operator=(const SubreaperScope&) = delete;
};

// Captures log lines while in scope.
class CapturedLog {
 public:
  CapturedLog() : sink_(std::make_shared<Sink>()) { previous_ = SetLogSink(sink_); }
  ~CapturedLog() { SetLogSink(previous_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  // The captured lines that contain `text`, in order.
  std::vector<std::string> LinesWith(absl::string_view text) const {
    std::lock_guard<std::mutex> lock(sink_->mu);
    std::vector<std::string> lines;
    for (const std::string& line : sink_->lines) {
      if (absl::StrContains(line, text)) lines.push_back(line);
    }
    return lines;
  }

 private:
  struct Sink : LogSink {
    void Write(LogLevel, absl::string_view line) override {
      std::lock_guard<std::mutex> lock(mu);
      lines.emplace_back(line);
    }
    std::mutex mu;
    std::vector<std::string> lines;
  };

  std::shared_ptr<Sink> sink_;
  std::shared_ptr<LogSink> previous_;
};

// The real seams and a work dir; Make() builds supervisors over them.
class SupervisorWorld {
 public:
  SupervisorWorld() {
    auto http = CurlHttpClient::Create();
    REQUIRE(http.ok());
    http_ = std::move(*http);
  }

  std::unique_ptr<Supervisor> Make(absl::Duration stop_grace = kLongWait, Clock* clock = nullptr) {
    return std::make_unique<Supervisor>(&launcher_, http_.get(), clock != nullptr ? clock : &clock_,
                                        log_dir(), run_dir(), stop_grace, &cancelled, &sleeper_);
  }

  std::string log_dir() const { return dir.File("logs"); }
  std::string run_dir() const { return dir.File("run"); }
  std::string pid_file(const std::string& name) const { return run_dir() + "/" + name + ".pid"; }
  std::string log_file(const std::string& name) const { return log_dir() + "/" + name + ".log"; }
  HttpClient* http() { return http_.get(); }
  // Supervisor::KillOrphans over this world's real time.
  int KillOrphans(const std::string& run_dir) {
    return Supervisor::KillOrphans(run_dir, &clock_, &sleeper_);
  }

  TempDir dir;
  std::atomic<bool> cancelled{false};

 private:
  PosixProcessLauncher launcher_;
  std::unique_ptr<CurlHttpClient> http_;
  RealClock clock_;
  RealSleeper sleeper_;
};

}  // namespace kvbench::agent::testing
