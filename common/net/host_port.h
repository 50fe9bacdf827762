#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench {

struct HostPort {
  std::string host;  // name, IPv4, or IPv6 without brackets
  int port = 0;      // 0..65535; 0 = pick a free port (listen addresses only)

  // "host:port", bracketing IPv6 hosts.
  std::string ToString() const;
};

// Parses "host:port", "[::1]:port". INVALID_ARGUMENT naming what is wrong.
absl::StatusOr<HostPort> ParseHostPort(absl::string_view text);

}  // namespace kvbench
