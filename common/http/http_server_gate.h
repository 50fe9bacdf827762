#pragma once

#include <atomic>
#include <thread>

namespace kvbench {

// Shared by an HttpServer and every responder it hands out. A responder touches its session (and
// through it the server's io_context) only inside Enter()/Leave(); Close() waits for those inside
// to leave and turns every later Enter() away, so after Stop() responders held elsewhere are
// no-ops even once the server is destroyed.
//
// Counting instead of a shared_mutex: glibc's rwlock prefers readers, and a steady stream of
// chunks from several threads could starve Close(); here a closed gate turns newcomers away.
class HttpServerGate {
 public:
  // Any thread. True if the gate is open: the caller must call Leave() afterwards.
  bool Enter() {
    inside_.fetch_add(1);
    if (!closed_.load()) return true;
    inside_.fetch_sub(1);
    return false;
  }
  void Leave() { inside_.fetch_sub(1); }

  // Any thread but one inside the gate. Idempotent. Those inside only append to a queue and post
  // to a strand, so the wait is short.
  void Close() {
    closed_.store(true);
    while (inside_.load() != 0) std::this_thread::yield();
  }

  bool closed() const { return closed_.load(); }

 private:
  std::atomic<int> inside_{0};
  std::atomic<bool> closed_{false};
};

}  // namespace kvbench
