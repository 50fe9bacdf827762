#pragma once

#include <string>

namespace kvbench {

// Who listens on TCP `port` on this machine, as far as /proc tells this process: "pid 4242
// (kv-controller)", several joined by ", ", or "" when nobody listens or the socket's owner is
// not visible (another user's process). For start-up errors that must say who holds a port.
std::string DescribeTcpListener(int port);

}  // namespace kvbench
