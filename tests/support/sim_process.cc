#include "tests/support/sim_process.h"

#include <csignal>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "common/process/posix_process_launcher.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {

SimProcess::SimProcess(std::string name, std::vector<std::string> argv, std::string ready_marker)
    : name_(std::move(name)),
      argv_(std::move(argv)),
      ready_marker_(std::move(ready_marker)),
      launcher_(std::make_unique<PosixProcessLauncher>()) {}

SimProcess::~SimProcess() {
  if (process_ != nullptr) (void)process_->Stop(absl::Seconds(5));
}

std::string SimProcess::log() const { return dir_.ReadFile("log"); }

std::string SimProcess::LogField(const std::string& prefix) const {
  std::string text = log();
  size_t at = text.find(prefix);
  if (at == std::string::npos) return "";
  size_t start = at + prefix.size();
  return text.substr(start, text.find_first_of(" \n", start) - start);
}

bool SimProcess::Start(absl::Duration timeout) {
  ProcessSpec spec;
  spec.name = name_;
  spec.argv = argv_;
  spec.stdout_path = dir_.File("log");
  absl::StatusOr<std::unique_ptr<Process>> process = launcher_->Launch(spec);
  if (!process.ok()) {
    error_ = std::string(process.status().message());
    return false;
  }
  process_ = std::move(*process);
  bool ready = WaitFor(
      [&] {
        url_ = LogField(ready_marker_);
        if (url_.empty()) return process_->TryWait().has_value();
        size_t colon = url_.rfind(':');
        return colon != std::string::npos && absl::SimpleAtoi(url_.substr(colon + 1), &port_);
      },
      timeout);
  if (!ready || port_ == 0) {
    error_ = name_ + " did not get ready; log:\n" + log();
    return false;
  }
  // Listen on loopback whatever host the log names.
  url_ = "http://127.0.0.1:" + std::to_string(port_);
  return true;
}

}  // namespace kvbench::testing
