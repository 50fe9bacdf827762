#pragma once

#include <mutex>
#include <set>
#include <string>

#include "absl/status/statusor.h"

namespace kvbench {

// Picks free TCP ports for the processes an agent starts: the kernel's choice for a bind to port
// 0 on the given IPv4 host, never a port this allocator already handed out (so two children of
// one scenario never get the same one while neither has bound it yet). The port is free when
// returned; a child binds it moments later (the small race every port-0 allocator has).
// Thread-safe.
class PortAllocator {
 public:
  // INVALID_ARGUMENT for a host that is not an IPv4 literal; UNAVAILABLE when no port can be
  // bound (naming the host and the OS error).
  absl::StatusOr<int> Allocate(const std::string& host = "127.0.0.1");

 private:
  std::mutex mu_;
  std::set<int> handed_out_;  // guarded by mu_
};

// One free port on `host` from a fresh bind to port 0 (what PortAllocator uses).
absl::StatusOr<int> BindEphemeralPort(const std::string& host);

}  // namespace kvbench
