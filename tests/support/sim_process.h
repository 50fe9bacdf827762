#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/process/process_launcher.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {

// A simulator binary (kvsim-vllm or kvsim-lmcache) running as a real child process for a test,
// started with `--port 0` style flags; Start() waits until the log line naming its URL appears
// and the port is known. Stops (TERM) on destruction.
class SimProcess {
 public:
  // `ready_marker` is the log text that precedes the URL, e.g. "Starting vLLM API server on ".
  SimProcess(std::string name, std::vector<std::string> argv, std::string ready_marker);
  ~SimProcess();

  // Launches and waits up to `timeout` for readiness; false (with the log tail in `error()`) if
  // the process exits or never gets ready.
  bool Start(absl::Duration timeout = absl::Seconds(20));
  // The base URL from the log line ("http://127.0.0.1:41234").
  const std::string& url() const { return url_; }
  int port() const { return port_; }
  Process* process() { return process_.get(); }
  std::string log() const;
  // The text after the first `prefix` in the log, up to the next space or newline ("" if the log
  // has no such line): e.g. LogField("http=") → "http://127.0.0.1:41235".
  std::string LogField(const std::string& prefix) const;
  const std::string& error() const { return error_; }

 private:
  std::string name_;
  std::vector<std::string> argv_;
  std::string ready_marker_;
  TempDir dir_;
  std::unique_ptr<ProcessLauncher> launcher_;
  std::unique_ptr<Process> process_;
  std::string url_;
  int port_ = 0;
  std::string error_;
};

}  // namespace kvbench::testing
