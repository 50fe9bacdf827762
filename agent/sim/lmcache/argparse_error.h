#pragma once

#include <string>
#include <vector>

namespace kvbench::sim::lmcache {

// What Python's argparse writes to stderr, before `lmcache` exits 2, for arguments that no option
// of `lmcache server` takes: the server's subparser hands what it did not recognise back to the
// top-level parser (parse_known_args), and that parser's parse_args refuses it with its own
// usage line:
//   usage: lmcache [-h] {mock,server} ...
//   lmcache: error: unrecognized arguments: --metrics-sample-rate=0.01
// The top-level parser is lmcache/cli/main.py's (LMCache/LMCache:lmcache/cli/main.py@5177ed50:
// prog "lmcache", one subparser per command); the commands of the prometheus-config generation
// are mock and server (its design note "`lmcache server` CLI Command", index copy 63206220099,
// registers ALL_COMMANDS = [MockCommand(), ServerCommand()]). kvsim-lmcache writes the same where
// that release refuses a command line that CLI11 takes (--sim-flag-set prometheus-config).
inline constexpr char kArgparseLmcacheUsage[] = "usage: lmcache [-h] {mock,server} ...";

// The two lines above, each ending in a newline; `extras` as given, joined by spaces.
std::string ArgparseUnrecognizedArgumentsError(const std::vector<std::string>& extras);

}  // namespace kvbench::sim::lmcache
