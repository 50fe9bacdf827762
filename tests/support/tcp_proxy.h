#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "absl/status/statusor.h"

namespace kvbench::testing {

// A loopback TCP forwarder a test can cut: listens on 127.0.0.1:<ephemeral port> and relays every
// accepted connection to 127.0.0.1:`target_port`, byte for byte, on a thread of its own.
// CutAll() closes every open connection at once, as a broken network would (the peers see a
// reset/EOF); new connections are accepted afterwards. SetRefusing(true) closes new connections
// as soon as they arrive (a peer that stays unreachable).
class TcpProxy {
 public:
  static absl::StatusOr<std::unique_ptr<TcpProxy>> Create(int target_port);
  ~TcpProxy();

  int port() const { return port_; }
  void CutAll();
  void SetRefusing(bool refusing) { refusing_ = refusing; }
  int connections_accepted() const { return accepted_; }

 private:
  TcpProxy(int listen_fd, int port, int target_port);
  void AcceptLoop();
  void Relay(int client_fd, int upstream_fd);

  const int listen_fd_;
  const int port_;
  const int target_port_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> refusing_{false};
  std::atomic<int> accepted_{0};
  std::mutex mu_;
  std::set<int> open_fds_;
  std::vector<std::thread> relays_;
  std::thread acceptor_;
};

}  // namespace kvbench::testing
