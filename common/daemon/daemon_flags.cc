#include "common/daemon/daemon_flags.h"

#include <csignal>

#include "common/log/logging.h"

namespace kvbench {

void AddDaemonFlags(CLI::App* app, DaemonFlags* flags) {
  app->add_option("--config", flags->config_path, "Path of the JSON config file")
      ->required()
      ->check(CLI::ExistingFile);
  app->add_option("--log_level", flags->log_level, "debug, info, warning or error")
      ->capture_default_str();
  app->add_flag("--validate_config", flags->validate_config,
                "Load and validate the config, print the effective config, and exit");
}

absl::Status ApplyLogLevel(const DaemonFlags& flags) {
  absl::StatusOr<LogLevel> level = ParseLogLevel(flags.log_level);
  if (!level.ok()) return level.status();
  SetMinLogLevel(*level);
  return absl::OkStatus();
}

void StopOnTerminate(EventLoop* loop, const std::function<void(int)>& on_signal) {
  loop->OnSignals({SIGTERM, SIGINT}, [loop, on_signal](int signal) {
    KV_LOG(INFO) << "shutting down signal=" << signal;
    on_signal(signal);
    loop->Stop();
  });
}

void RunUntilTerminated(EventLoop* loop, const std::function<void(int)>& on_signal) {
  StopOnTerminate(loop, on_signal);
  loop->Run();
}

}  // namespace kvbench
