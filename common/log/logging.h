#pragma once

// The logging facade (Abseil 20220623 has no absl/log). One line per message:
//   2026-11-29T15:36:35.123456Z I agent.cc:42] scenario started scenario=00-gpu-c2 replicas=2
// Context goes in as key=value pairs after the message. Never log on the replay hot path.
//
//   KV_LOG(INFO) << "listening address=" << address;
//   KV_LOG_EVERY_N_SEC(WARNING, 30) << "scrape failed source=" << source;  // rate-limited
//   KV_CHECK(ptr != nullptr) << "broken invariant";                          // aborts

#include <atomic>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

// Where formatted lines go; stderr by default. Tests install a capturing sink.
class LogSink {
 public:
  virtual ~LogSink() = default;
  virtual void Write(LogLevel level, absl::string_view line) = 0;
};

void SetMinLogLevel(LogLevel level);
LogLevel MinLogLevel();
// "debug", "info", "warning", "error" (case-insensitive).
absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view text);
// Installs `sink` (nullptr restores stderr) and returns the previous one.
std::shared_ptr<LogSink> SetLogSink(std::shared_ptr<LogSink> sink);

namespace log_internal {

class LogMessage {
 public:
  LogMessage(const char* file, int line, LogLevel level);
  ~LogMessage();  // writes the line; aborts for kFatal
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;
  std::ostream& stream() { return stream_; }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};

// True at most once per `period_us` per call site.
bool ShouldLogEvery(std::atomic<int64_t>* last_us, int64_t period_us);

// The names KV_LOG takes: KV_LOG(INFO) is LogLevel::kInfo.
inline constexpr LogLevel kLevel_DEBUG = LogLevel::kDebug;
inline constexpr LogLevel kLevel_INFO = LogLevel::kInfo;
inline constexpr LogLevel kLevel_WARNING = LogLevel::kWarning;
inline constexpr LogLevel kLevel_ERROR = LogLevel::kError;
inline constexpr LogLevel kLevel_FATAL = LogLevel::kFatal;

// Lets `cond ? (void)0 : Voidify() & stream` compile as a statement.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace log_internal
}  // namespace kvbench

#define KV_LOG_LEVEL_(level) ::kvbench::log_internal::kLevel_##level

#define KV_LOG(level)                                                      \
  !(KV_LOG_LEVEL_(level) >= ::kvbench::MinLogLevel())                      \
      ? (void)0                                                            \
      : ::kvbench::log_internal::Voidify() &                               \
            ::kvbench::log_internal::LogMessage(__FILE__, __LINE__, KV_LOG_LEVEL_(level)).stream()

#define KV_LOG_EVERY_N_SEC(level, seconds)                                                \
  if (static std::atomic<int64_t> kv_log_last_us_{INT64_MIN / 2};                         \
      !::kvbench::log_internal::ShouldLogEvery(&kv_log_last_us_,                          \
                                               static_cast<int64_t>((seconds) * 1e6))) { \
  } else                                                                                  \
    KV_LOG(level)

#define KV_CHECK(cond)                                                                   \
  (cond) ? (void)0                                                                       \
         : ::kvbench::log_internal::Voidify() &                                          \
               ::kvbench::log_internal::LogMessage(__FILE__, __LINE__,                   \
                                                   ::kvbench::LogLevel::kFatal).stream() \
                   << "Check failed: " #cond " "
