#include "common/cli/stop_signals.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>

#include "common/log/logging.h"

namespace kvbench {
namespace {

constexpr int kMaxSignal = 64;

// Written by the handlers, read by the watcher thread. Both set once under g_mu.
int g_pipe[2] = {-1, -1};
std::mutex g_mu;
std::array<std::atomic<StopSource*>, kMaxSignal + 1> g_sources{};

void OnSignal(int signal) {
  const int saved_errno = errno;
  const unsigned char byte = static_cast<unsigned char>(signal);
  (void)!::write(g_pipe[1], &byte, 1);  // full pipe: a byte is already waiting
  errno = saved_errno;
}

void WatchSignals() {
  for (;;) {
    unsigned char byte = 0;
    const ssize_t n = ::read(g_pipe[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return;
    if (byte <= kMaxSignal) {
      if (StopSource* source = g_sources[byte].load()) source->RequestStop();
    }
  }
}

}  // namespace

StopSource* StopOnSignals(std::initializer_list<int> signals) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_pipe[0] < 0) {
    KV_CHECK(::pipe2(g_pipe, O_CLOEXEC) == 0) << "cannot make the signal pipe";
    ::fcntl(g_pipe[1], F_SETFL, O_NONBLOCK);
    std::thread(WatchSignals).detach();
  }
  // The same set again: its source.
  for (int signal : signals) {
    KV_CHECK(signal > 0 && signal <= kMaxSignal) << "signal out of range: " << signal;
  }
  StopSource* existing = g_sources[*signals.begin()].load();
  if (existing != nullptr) return existing;
  auto* source = new StopSource();  // lives as long as the process: handlers may fire at exit
  for (int signal : signals) {
    StopSource* expected = nullptr;
    g_sources[signal].compare_exchange_strong(expected, source);
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(signal, &action, nullptr);
  }
  return source;
}

}  // namespace kvbench
