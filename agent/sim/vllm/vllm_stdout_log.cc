#include "agent/sim/vllm/vllm_stdout_log.h"

#include <iostream>
#include <memory>
#include <utility>

#include "common/log/logging.h"

namespace kvbench::sim {
namespace {

class StdoutLogSink : public LogSink {
 public:
  void Write(LogLevel, absl::string_view line) override {
    std::cout << line << std::endl;  // flushed: the agent reads the log while the process runs
  }
};

}  // namespace

void LogInfoToStdout(const std::string& message) {
  std::shared_ptr<LogSink> previous = SetLogSink(std::make_shared<StdoutLogSink>());
  KV_LOG(INFO) << message;
  SetLogSink(std::move(previous));
}

}  // namespace kvbench::sim
