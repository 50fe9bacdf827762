// kv-null-sse-target: the runner roofline's target (tests/bench/runner_roofline_bench.cc).
//   kv-null-sse-target [--port 0] [--io-threads 2] [--content-chunks 16] [--stamps FILE]
// Runs until SIGTERM/SIGINT, then writes its first-byte stamps (JSON lines) to --stamps or stdout.
#include <pthread.h>
#include <signal.h>

#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "common/cli/command_line.h"
#include "tests/bench/null_sse_target.h"

int main(int argc, char** argv) {
  kvbench::bench::NullSseTarget::Options options;
  std::string stamps_path;
  CLI::App app{"kv-null-sse-target: answers chat completions at once with a fixed SSE stream"};
  app.add_option("--port", options.port, "Port (0: pick a free one)");
  app.add_option("--io-threads", options.io_threads, "Server I/O threads");
  app.add_option("--content-chunks", options.content_chunks, "Content chunks per response");
  app.add_option("--stamps", stamps_path, "Where to write the stamps at exit (default stdout)");
  if (int code = kvbench::ParseCommandLine(&app, argc, argv); code >= 0) return code;

  // Block the stop signals before any server thread starts, so only sigwait below sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  kvbench::bench::NullSseTarget target(options);
  if (absl::Status status = target.Start(); !status.ok()) {
    std::cerr << "kv-null-sse-target: " << status.message() << "\n";
    return 1;
  }
  std::cerr << "null SSE target listening on http://127.0.0.1:" << target.port() << std::endl;
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  target.Stop();
  if (stamps_path.empty()) {
    std::cout << target.StampsJsonLines() << std::flush;
  } else {
    std::ofstream(stamps_path) << target.StampsJsonLines();
  }
  return 0;
}
