#include "common/log/logging.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace kvbench {
namespace {

class StderrSink : public LogSink {
 public:
  void Write(LogLevel, absl::string_view line) override {
    // One write(2) per line so lines from several threads never interleave.
    std::string buffer(line);
    buffer.push_back('\n');
    ssize_t ignored = ::write(STDERR_FILENO, buffer.data(), buffer.size());
    (void)ignored;
  }
};

std::atomic<int> g_min_level{static_cast<int>(LogLevel::kInfo)};

std::mutex& SinkMutex() {
  static std::mutex mu;
  return mu;
}

std::shared_ptr<LogSink>& SinkSlot() {
  static std::shared_ptr<LogSink> sink = std::make_shared<StderrSink>();
  return sink;
}

char LevelLetter(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return 'D';
    case LogLevel::kInfo:
      return 'I';
    case LogLevel::kWarning:
      return 'W';
    case LogLevel::kError:
      return 'E';
    case LogLevel::kFatal:
      return 'F';
  }
  return '?';
}

absl::string_view Basename(absl::string_view path) {
  size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

void SetMinLogLevel(LogLevel level) { g_min_level.store(static_cast<int>(level)); }

LogLevel MinLogLevel() { return static_cast<LogLevel>(g_min_level.load(std::memory_order_relaxed)); }

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view text) {
  std::string lower = absl::AsciiStrToLower(text);
  if (lower == "debug") return LogLevel::kDebug;
  if (lower == "info") return LogLevel::kInfo;
  if (lower == "warning" || lower == "warn") return LogLevel::kWarning;
  if (lower == "error") return LogLevel::kError;
  return absl::InvalidArgumentError(
      absl::StrCat("log level \"", text, "\" is not one of debug, info, warning, error"));
}

std::shared_ptr<LogSink> SetLogSink(std::shared_ptr<LogSink> sink) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  std::shared_ptr<LogSink> previous = SinkSlot();
  SinkSlot() = sink ? std::move(sink) : std::make_shared<StderrSink>();
  return previous;
}

namespace log_internal {

LogMessage::LogMessage(const char* file, int line, LogLevel level) : level_(level) {
  stream_ << absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::Now(), absl::UTCTimeZone()) << ' '
          << LevelLetter(level) << ' ' << Basename(file) << ':' << line << "] ";
}

LogMessage::~LogMessage() {
  std::shared_ptr<LogSink> sink;
  {
    std::lock_guard<std::mutex> lock(SinkMutex());
    sink = SinkSlot();
  }
  sink->Write(level_, stream_.str());
  if (level_ == LogLevel::kFatal) std::abort();
}

bool ShouldLogEvery(std::atomic<int64_t>* last_us, int64_t period_us) {
  int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::steady_clock::now().time_since_epoch())
                       .count();
  int64_t last = last_us->load(std::memory_order_relaxed);
  if (now_us - last < period_us) return false;
  return last_us->compare_exchange_strong(last, now_us, std::memory_order_relaxed);
}

}  // namespace log_internal
}  // namespace kvbench
