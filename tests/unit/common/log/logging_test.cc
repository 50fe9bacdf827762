#include <catch2/catch.hpp>

#include <mutex>
#include <string>
#include <vector>

#include "common/log/logging.h"

namespace kvbench {
namespace {

class CapturingSink : public LogSink {
 public:
  void Write(LogLevel level, absl::string_view line) override {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.emplace_back(line);
    levels_.push_back(level);
  }
  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
  std::vector<LogLevel> levels_;
};

// Installs a capturing sink and restores the previous sink and level afterwards.
struct ScopedCapture {
  ScopedCapture() : sink(std::make_shared<CapturingSink>()) {
    previous = SetLogSink(sink);
    previous_level = MinLogLevel();
  }
  ~ScopedCapture() {
    SetLogSink(previous);
    SetMinLogLevel(previous_level);
  }
  std::shared_ptr<CapturingSink> sink;
  std::shared_ptr<LogSink> previous;
  LogLevel previous_level;
};

int g_evaluations = 0;
int Expensive() {
  ++g_evaluations;
  return 42;
}

TEST_CASE("A log line carries time, level, file:line, message and key=value context") {
  ScopedCapture capture;
  KV_LOG(INFO) << "scenario started scenario=" << "00-gpu-c2" << " replicas=" << 2;
  auto lines = capture.sink->lines();
  REQUIRE(lines.size() == 1);
  const std::string& line = lines[0];
  CHECK(line.find("Z I logging_test.cc:") != std::string::npos);
  CHECK(line.find("] scenario started scenario=00-gpu-c2 replicas=2") != std::string::npos);
  CHECK(line.substr(0, 2) == "20");  // an ISO date first
}

TEST_CASE("Messages below the minimum level are dropped without evaluating their arguments") {
  ScopedCapture capture;
  SetMinLogLevel(LogLevel::kWarning);
  g_evaluations = 0;
  KV_LOG(INFO) << "hidden " << Expensive();
  KV_LOG(DEBUG) << "hidden " << Expensive();
  KV_LOG(ERROR) << "shown " << Expensive();
  CHECK(g_evaluations == 1);
  REQUIRE(capture.sink->lines().size() == 1);
  CHECK(capture.sink->lines()[0].find(" E ") != std::string::npos);
}

TEST_CASE("KV_LOG_EVERY_N_SEC logs once per period per call site") {
  ScopedCapture capture;
  for (int i = 0; i < 100; ++i) {
    KV_LOG_EVERY_N_SEC(WARNING, 3600) << "scrape failed attempt=" << i;
  }
  auto lines = capture.sink->lines();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("attempt=0") != std::string::npos);
}

TEST_CASE("KV_LOG works as the body of an unbraced if/else") {
  ScopedCapture capture;
  bool flag = false;
  if (flag)
    KV_LOG(INFO) << "then";
  else
    KV_LOG(INFO) << "else";
  REQUIRE(capture.sink->lines().size() == 1);
  CHECK(capture.sink->lines()[0].find("else") != std::string::npos);
}

TEST_CASE("Log levels parse from their names and reject others") {
  CHECK(*ParseLogLevel("debug") == LogLevel::kDebug);
  CHECK(*ParseLogLevel("INFO") == LogLevel::kInfo);
  CHECK(*ParseLogLevel("warning") == LogLevel::kWarning);
  CHECK(*ParseLogLevel("error") == LogLevel::kError);
  absl::StatusOr<LogLevel> bad = ParseLogLevel("loud");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).find("loud") != std::string::npos);
}

}  // namespace
}  // namespace kvbench
