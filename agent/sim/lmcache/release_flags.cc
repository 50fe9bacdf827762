#include "agent/sim/lmcache/release_flags.h"

namespace kvbench::sim::lmcache {
namespace {

// The prometheus-config generation's own flags: add_prometheus_args
// (LMCache/LMCache:lmcache/v1/mp_observability/config.py@ec451313) less --prometheus-port, which
// both generations have and AddServerFlags adds; add_telemetry_args
// (mp_observability/telemetry/config.py@3fd3000f); and the server command's --no-http (index
// copy 63525067100 of lmcache/cli/commands/server.py). Only --disable-prometheus is simulated.
void AddPrometheusConfigFlags(CLI::App* server, ServerFlags* flags) {
  server->add_flag("--disable-prometheus", flags->disable_prometheus,
                   "Disable Prometheus metrics collection and HTTP server: /metrics is served "
                   "nowhere");
  server->add_option("--prometheus-log-interval",
                     "Seconds between flushes of stats to Prometheus (accepted, not simulated)");
  server->add_flag("--enable-telemetry",
                   "Enable the telemetry event system (accepted, not "
                   "simulated)");
  server->add_option("--telemetry-max-queue-size",
                     "Telemetry queue size before tail-drop (accepted, not simulated)");
  server
      ->add_option("--telemetry-processor",
                   "Telemetry processor spec as JSON, repeatable (accepted, not simulated)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  server->add_flag("--no-http",
                   "Disable the HTTP frontend (accepted, not simulated: the HTTP "
                   "frontend always runs)");
}

}  // namespace

void AddReleaseFlags(CLI::App* server, ServerFlags* flags, FlagSet flag_set) {
  if (flag_set == FlagSet::kPrometheusConfig) AddPrometheusConfigFlags(server, flags);
  // Read before the command line is parsed too (PrescanRelease); listed here so that they are
  // checked and shown by --help. No description names another generation's flags: the agent
  // reads the flag names in --help.
  server
      ->add_option("--sim-lmcache-version", flags->sim_lmcache_version,
                   "The release number the startup banner shows (on stderr, before anything else)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](const std::string& value) {
            return value.empty() ? std::string("must not be empty") : std::string();
          },
          "VERSION"));
  server
      ->add_option("--sim-flag-set", flags->sim_flag_set,
                   "current, or prometheus-config: the generation whose observability flags "
                   "come from add_prometheus_args and add_telemetry_args (no sample-rate or "
                   "OTLP flag; unknown flags are refused as argparse does)")
      ->capture_default_str()
      ->check(CLI::IsMember({kFlagSetCurrent, kFlagSetPrometheusConfig}));
  server
      ->add_option("--sim-throughput-names", flags->sim_throughput_names,
                   "GB_per_second, or gbs_GB_per_second: the throughput histograms exported as "
                   "lmcache_mp_*_throughput_gbs_GB_per_second (older builds)")
      ->capture_default_str()
      ->check(CLI::IsMember({kThroughputNamesGbPerSecond, kThroughputNamesGbsGbPerSecond}));
  server->add_flag("--sim-otel-env", flags->sim_otel_env,
                   "With OTEL_EXPORTER_OTLP_ENDPOINT set, metrics are pushed (not simulated) and "
                   "/metrics is served nowhere, as older builds' OTel set-up");
  server
      ->add_option("--sim-l2-config", flags->sim_l2_config,
                   "eviction, or no-eviction: the --l2-adapter eviction block is ignored and the "
                   "L2 pool never evicts (older builds)")
      ->capture_default_str()
      ->check(CLI::IsMember({kL2ConfigEviction, kL2ConfigNoEviction}));
}

}  // namespace kvbench::sim::lmcache
