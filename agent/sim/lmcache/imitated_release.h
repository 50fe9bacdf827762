#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace kvbench::sim::lmcache {

// Which LMCache release kvsim-lmcache imitates: the --sim-* flags that pick an older
// generation of upstream's command line, metric names, OTel set-up and L2 config parser. Every
// default is the newest generation, which is what the simulator did before these flags existed.

// --sim-lmcache-version: the version the startup banner names ("LMCache v0.5.6"). The newest
// lmcache release on PyPI when the simulator was last checked against upstream
// (reference/upstream-audit-2026-12.md §0).
inline constexpr char kDefaultLmcacheVersion[] = "0.5.6";

// --sim-flag-set: which observability flags `lmcache server` accepts.
//   current            add_observability_args (LMCache/LMCache:lmcache/cli/commands/
//                      server.py@3361c1c3, mp_observability/config.py@0a353d63):
//                      --metrics-sample-rate, --otlp-endpoint, --prometheus-port.
//   prometheus-config  the generation whose server composes add_prometheus_args and
//                      add_telemetry_args (LMCache/LMCache:lmcache/v1/mp_observability/
//                      config.py@ec451313, telemetry/config.py@3fd3000f; the server command of
//                      that generation is index copy 63525067100 of lmcache/cli/commands/
//                      server.py, no commit readable): --disable-prometheus, --prometheus-port,
//                      --prometheus-log-interval, --enable-telemetry, --telemetry-max-queue-size,
//                      --telemetry-processor and --no-http; no --metrics-sample-rate and no
//                      --otlp-endpoint, so argparse refuses them (exit 2).
enum class FlagSet { kCurrent, kPrometheusConfig };
inline constexpr char kFlagSetCurrent[] = "current";
inline constexpr char kFlagSetPrometheusConfig[] = "prometheus-config";

// --sim-throughput-names: the exported names of the four throughput histograms.
//   GB_per_second      lmcache_mp_{l0_l1,l2}_{load,store}_throughput_GB_per_second: instruments
//                      "lmcache_mp.*_throughput" with unit "GB/s" (the newest l2_throughput).
//   gbs_GB_per_second  lmcache_mp_{l0_l1,l2}_{load,store}_throughput_gbs_GB_per_second: the
//                      generation whose instruments are "lmcache_mp.*_throughput_gbs" with unit
//                      "GB/s" (LMCache/LMCache:lmcache/v1/mp_observability/subscribers/metrics/
//                      l0_l1_throughput.py@5992904e, l2_throughput.py@00969dae); the OTel
//                      Prometheus exporter maps "GB/s" to GB_per_second and appends it. No
//                      release exports a bare `..._gbs` family.
enum class ThroughputNames { kGbPerSecond, kGbsGbPerSecond };
inline constexpr char kThroughputNamesGbPerSecond[] = "GB_per_second";
inline constexpr char kThroughputNamesGbsGbPerSecond[] = "gbs_GB_per_second";

// --sim-l2-config: how an --l2-adapter JSON is parsed.
//   eviction     the optional "eviction" block bounds the pool (LMCache/LMCache:lmcache/v1/
//                distributed/l2_adapters/config.py@04aa2be9).
//   no-eviction  parse_args_to_l2_adapters_config calls only the adapter's from_dict and has no
//                eviction parsing (LMCache/LMCache:lmcache/v1/distributed/l2_adapters/
//                config.py@aa88f5bd): the block is accepted and ignored, the pool never evicts.
enum class L2ConfigGeneration { kEviction, kNoEviction };
inline constexpr char kL2ConfigEviction[] = "eviction";
inline constexpr char kL2ConfigNoEviction[] = "no-eviction";

// The OTel variable that otel_init.py@1519dfc2 reads when no OTLP endpoint is configured
// (--sim-otel-env): set, metrics are pushed over OTLP and no /metrics is served.
inline constexpr char kOtelOtlpEndpointEnv[] = "OTEL_EXPORTER_OTLP_ENDPOINT";

// What must be known before the command line is parsed: the banner is printed first (upstream's
// cli/main.py prints it before parse_args) and the flag set decides which flags exist, so --help
// lists the imitated release's flags.
struct PrescannedRelease {
  std::string version = kDefaultLmcacheVersion;
  FlagSet flag_set = FlagSet::kCurrent;
};

// Reads --sim-lmcache-version and --sim-flag-set from `args` (argv without the program name), as
// `--name=value` or `--name value`, up to a `--`; the last one given wins. A missing or empty
// version keeps the default, an unknown flag set means current: the parser that runs next
// rejects such values with its own message.
PrescannedRelease PrescanRelease(const std::vector<std::string>& args);

// The value of the option `name` ("--sim-flag-set") in `args`, or `fallback`; as PrescanRelease.
std::string PrescanOptionValue(const std::vector<std::string>& args, absl::string_view name,
                               std::string fallback);

}  // namespace kvbench::sim::lmcache
