#include "common/net/host_port.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kvbench {

std::string HostPort::ToString() const {
  bool ipv6 = host.find(':') != std::string::npos;
  return ipv6 ? absl::StrCat("[", host, "]:", port) : absl::StrCat(host, ":", port);
}

absl::StatusOr<HostPort> ParseHostPort(absl::string_view text) {
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" is not host:port (", why, ")"));
  };
  HostPort result;
  absl::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == absl::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return invalid("an IPv6 host needs the form [addr]:port");
    }
    result.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == absl::string_view::npos) return invalid("missing :port");
    result.host = std::string(text.substr(0, colon));
    if (result.host.find(':') != std::string::npos) return invalid("bracket IPv6 hosts");
    port_text = text.substr(colon + 1);
  }
  if (result.host.empty()) return invalid("empty host");
  if (!absl::SimpleAtoi(port_text, &result.port) || result.port < 0 || result.port > 65535) {
    return invalid("the port must be a number from 0 to 65535");
  }
  return result;
}

}  // namespace kvbench
