#pragma once

#include <CLI/CLI.hpp>

#include "agent/sim/lmcache/imitated_release.h"
#include "agent/sim/lmcache/server_config.h"

namespace kvbench::sim::lmcache {

// Adds the flags of `kvsim-lmcache server` that pick the imitated LMCache release
// (imitated_release.h): --sim-lmcache-version, --sim-flag-set, --sim-throughput-names,
// --sim-otel-env and --sim-l2-config; and for the prometheus-config flag set that generation's
// own observability flags (--disable-prometheus, simulated: /metrics is served nowhere;
// --prometheus-log-interval, --enable-telemetry, --telemetry-max-queue-size,
// --telemetry-processor and --no-http, accepted and not simulated). AddServerFlags calls it.
void AddReleaseFlags(CLI::App* server, ServerFlags* flags, FlagSet flag_set);

}  // namespace kvbench::sim::lmcache
