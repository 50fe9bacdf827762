// kvsim-lmcache: a drop-in simulator of `lmcache server` (LMCache multiprocess mode) for kvbench.
// `kvsim-lmcache server --l1-size-gb 8 --eviction-policy LRU [flags]` serves kvsim-vllm's
// connector over ZMQ on --port and /healthcheck, /metrics on --http-port, until SIGTERM/SIGINT.
// See agent/sim/lmcache/lmcache_server.h and DESIGN.md "Engines: real and simulated". The
// --sim-* flags of imitated_release.h imitate older LMCache releases.

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/sim/lmcache/argparse_error.h"
#include "agent/sim/lmcache/imitated_release.h"
#include "agent/sim/lmcache/lmcache_server.h"
#include "agent/sim/lmcache/server_config.h"
#include "agent/sim/lmcache/startup_banner.h"
#include "common/cli/command_line.h"
#include "common/log/logging.h"
#include "common/loop/event_loop.h"
#include "common/status/exit_code.h"
#include "common/time/clock.h"

namespace {

// CLI11's message, plus how to call the binary when the `server` word is missing.
std::string FailureMessage(const CLI::App* app, const CLI::Error& error) {
  std::string message = CLI::FailureMessage::simple(app, error);
  if (app->get_subcommands().empty()) {
    message += "Usage: kvsim-lmcache server --l1-size-gb GB --eviction-policy LRU [flags]\n";
  }
  return message;
}

int Fail(const absl::Status& status) {
  std::cerr << "kvsim-lmcache: " << status.message() << "\n";
  return kvbench::ExitCodeForStatus(status);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kvbench;
  using namespace kvbench::sim::lmcache;
  // As upstream's cli/main.py: the banner first, before the command line is parsed (so --help
  // and usage errors get it too); the flag set decides which flags there are.
  const PrescannedRelease release = PrescanRelease(std::vector<std::string>(argv + 1, argv + argc));
  if (!BannerDisabledBy(std::getenv(kDisableBannerEnv))) {
    std::cerr << RenderStartupBanner(release.version, isatty(STDERR_FILENO) == 1) << std::flush;
  }
  CLI::App app{"kvsim-lmcache: a simulator of `lmcache server` (LMCache multiprocess mode)"};
  app.require_subcommand(1);
  app.failure_message(FailureMessage);
  CLI::App* server_command = app.add_subcommand("server", "Run the LMCache cache server");
  ServerFlags flags;
  AddServerFlags(server_command, &flags, release.flag_set);
  // argparse's parse_args refuses what no option takes after everything else is checked: kept by
  // CLI11 here, then refused with argparse's message.
  if (release.flag_set == FlagSet::kPrometheusConfig) server_command->allow_extras();
  if (int code = ParseCommandLine(&app, argc, argv); code >= 0) return code;
  if (std::vector<std::string> extras = server_command->remaining(); !extras.empty()) {
    std::cerr << ArgparseUnrecognizedArgumentsError(extras);
    return kExitInvalidArgument;
  }
  if (const char* endpoint = std::getenv(kOtelOtlpEndpointEnv); endpoint != nullptr) {
    flags.env_otlp_endpoint = endpoint;
  }

  // LMCache's own log-level variable (reference/lmcache.md §2.2).
  if (const char* level = std::getenv("LMCACHE_LOG_LEVEL"); level != nullptr && *level != '\0') {
    absl::StatusOr<LogLevel> parsed = ParseLogLevel(level);
    if (!parsed.ok()) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("LMCACHE_LOG_LEVEL: ", parsed.status().message())));
    }
    SetMinLogLevel(*parsed);
  }
  absl::StatusOr<ServerConfig> config = BuildServerConfig(flags);
  if (!config.ok()) return Fail(config.status());

  RealClock clock;
  EventLoop loop("lmcache");
  absl::StatusOr<std::unique_ptr<LmcacheServer>> server =
      LmcacheServer::Create(*config, &loop, &clock);
  if (!server.ok()) return Fail(server.status());
  // Signals are watched before anything listens, so a SIGTERM right after readiness is orderly.
  loop.OnSignals({SIGTERM, SIGINT}, [&](int signal) {
    KV_LOG(INFO) << "shutting down signal=" << signal;
    (*server)->Shutdown();
    loop.Stop();
  });
  if (absl::Status status = (*server)->Start(); !status.ok()) return Fail(status);
  loop.Run();
  return kExitOk;
}
