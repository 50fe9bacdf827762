// The pieces of kvsim-lmcache that imitate older LMCache releases (imitated_release.h), without a
// process: the argv pre-scan, the banner, argparse's usage error, and what the --sim-* flags do
// to the server's config, metric names and L2 parser.

#include "agent/sim/lmcache/imitated_release.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "agent/sim/lmcache/argparse_error.h"
#include "agent/sim/lmcache/lmcache_metrics.h"
#include "agent/sim/lmcache/server_config.h"
#include "agent/sim/lmcache/startup_banner.h"
#include "tests/component/agent/sim/lmcache/metrics_text.h"

namespace kvbench::sim::lmcache {
namespace {

using ::kvbench::sim::lmcache::testing::HasFamily;

TEST_CASE("Imitated release: the pre-scan reads the version and the flag set as CLI11 will") {
  struct Case {
    std::vector<std::string> args;
    std::string version;
    FlagSet flag_set;
  };
  const std::vector<Case> cases = {
      {{"server", "--help"}, "0.5.6", FlagSet::kCurrent},
      {{"server", "--sim-lmcache-version=0.4.2", "--help"}, "0.4.2", FlagSet::kCurrent},
      {{"server", "--sim-lmcache-version", "0.4.2"}, "0.4.2", FlagSet::kCurrent},
      {{"server", "--sim-lmcache-version"}, "0.5.6", FlagSet::kCurrent},  // no value
      {{"server", "--sim-lmcache-version", "--help"}, "0.5.6", FlagSet::kCurrent},
      {{"server", "--sim-lmcache-version="}, "0.5.6", FlagSet::kCurrent},
      {{"server", "--sim-flag-set=prometheus-config"}, "0.5.6", FlagSet::kPrometheusConfig},
      {{"server", "--sim-flag-set", "prometheus-config", "--sim-lmcache-version=0.3.1"},
       "0.3.1",
       FlagSet::kPrometheusConfig},
      {{"server", "--sim-flag-set=bogus"}, "0.5.6", FlagSet::kCurrent},
      {{"server", "--", "--sim-flag-set=prometheus-config"}, "0.5.6", FlagSet::kCurrent},
  };
  for (const Case& c : cases) {
    std::ostringstream args;
    for (const std::string& arg : c.args) args << arg << ' ';
    INFO(args.str());
    const PrescannedRelease release = PrescanRelease(c.args);
    CHECK(release.version == c.version);
    CHECK(release.flag_set == c.flag_set);
  }
}

TEST_CASE("Imitated release: LMCACHE_DISABLE_BANNER values that turn the banner off") {
  CHECK_FALSE(BannerDisabledBy(nullptr));
  CHECK_FALSE(BannerDisabledBy(""));
  CHECK_FALSE(BannerDisabledBy("0"));
  CHECK_FALSE(BannerDisabledBy("no"));
  CHECK_FALSE(BannerDisabledBy("false"));
  CHECK(BannerDisabledBy("1"));
  CHECK(BannerDisabledBy("true"));
  CHECK(BannerDisabledBy("TRUE"));
  CHECK(BannerDisabledBy(" yes "));
}

TEST_CASE("Imitated release: the banner, plain and on a terminal") {
  const std::string plain = RenderStartupBanner("0.4.2", false);
  INFO(plain);
  // A blank line, five logo rows, the opt-out line, a blank line.
  CHECK(std::count(plain.begin(), plain.end(), '\n') == 8);
  CHECK(plain.rfind("\n", 0) == 0);
  CHECK(plain.substr(plain.size() - 2) == "\n\n");
  CHECK(plain.find("     LMCache v0.4.2\n") != std::string::npos);
  CHECK(plain.find("Website:  https://lmcache.ai/") != std::string::npos);
  CHECK(plain.find("Set LMCACHE_DISABLE_BANNER=1 to hide this banner.\n") != std::string::npos);
  CHECK(plain.find('\x1b') == std::string::npos);
  const std::string colored = RenderStartupBanner("0.4.2", true);
  CHECK(colored.find("\x1b[") != std::string::npos);
  CHECK(colored.find("LMCache v0.4.2") != std::string::npos);
}

// `kvsim-lmcache server` as main() builds it for `flag_set`.
struct ReleaseCommandLine {
  explicit ReleaseCommandLine(FlagSet flag_set) {
    server = app.add_subcommand("server");
    AddServerFlags(server, &flags, flag_set);
  }
  CLI::App app{"test"};
  CLI::App* server = nullptr;
  ServerFlags flags;
};

TEST_CASE("Imitated release: argparse's error for unrecognized arguments") {
  // What Python 3's argparse prints for `lmcache server ... --metrics-sample-rate 0.01` when the
  // server's subparser has no such option: the top-level parser's usage and error.
  CHECK(ArgparseUnrecognizedArgumentsError({"--metrics-sample-rate=0.01"}) ==
        "usage: lmcache [-h] {mock,server} ...\n"
        "lmcache: error: unrecognized arguments: --metrics-sample-rate=0.01\n");
  CHECK(ArgparseUnrecognizedArgumentsError({"--metrics-sample-rate", "0.01", "--x"}) ==
        "usage: lmcache [-h] {mock,server} ...\n"
        "lmcache: error: unrecognized arguments: --metrics-sample-rate 0.01 --x\n");
}

absl::StatusOr<ServerConfig> BuildReleaseConfig(FlagSet flag_set, std::vector<std::string> args,
                                                std::optional<std::string> env_endpoint) {
  ReleaseCommandLine command(flag_set);
  args.insert(args.begin(),
              {"kvsim-lmcache", "server", "--l1-size-gb", "1", "--eviction-policy", "LRU"});
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  try {
    command.app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& error) {
    return absl::InvalidArgumentError(error.what());
  }
  command.flags.env_otlp_endpoint = std::move(env_endpoint);
  return BuildServerConfig(command.flags);
}

TEST_CASE(
    "Imitated release: OTEL_EXPORTER_OTLP_ENDPOINT switches to push only with --sim-otel-env") {
  const std::string collector = "http://collector:4317";
  struct Case {
    std::string name;
    std::vector<std::string> args;
    std::optional<std::string> env;
    bool pushed;
    std::optional<std::string> logged_endpoint;
  };
  const std::vector<Case> cases = {
      {"default, variable set", {}, collector, false, std::nullopt},
      {"--sim-otel-env, variable unset", {"--sim-otel-env"}, std::nullopt, false, std::nullopt},
      {"--sim-otel-env, variable set", {"--sim-otel-env"}, collector, true, collector},
      // `is not None` upstream: an empty value is an endpoint too.
      {"--sim-otel-env, variable empty", {"--sim-otel-env"}, "", true, ""},
      {"--otlp-endpoint wins",
       {"--sim-otel-env", "--otlp-endpoint", "x:1"},
       collector,
       true,
       std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    absl::StatusOr<ServerConfig> config = BuildReleaseConfig(FlagSet::kCurrent, c.args, c.env);
    REQUIRE(config.ok());
    CHECK(config->metrics_pushed == c.pushed);
    CHECK(config->otlp_endpoint_from_env == c.logged_endpoint);
  }
}

TEST_CASE("Imitated release: the prometheus-config flag set") {
  absl::StatusOr<ServerConfig> config = BuildReleaseConfig(
      FlagSet::kPrometheusConfig,
      {"--prometheus-log-interval", "5", "--enable-telemetry", "--telemetry-processor",
       R"({"type":"logging"})", "--telemetry-processor", R"({"type":"logging"})", "--no-http"},
      std::nullopt);
  INFO(config.status().message());
  REQUIRE(config.ok());
  CHECK_FALSE(config->metrics_pushed);
  CHECK(config->metrics_sample_rate == kDefaultMetricsSampleRate);
  config = BuildReleaseConfig(FlagSet::kPrometheusConfig, {"--disable-prometheus"}, std::nullopt);
  REQUIRE(config.ok());
  CHECK(config->metrics_pushed);  // served nowhere
  // Not in this generation; in the current one, the other way round.
  CHECK_FALSE(
      BuildReleaseConfig(FlagSet::kPrometheusConfig, {"--otlp-endpoint", "x:1"}, std::nullopt)
          .ok());
  CHECK_FALSE(BuildReleaseConfig(FlagSet::kCurrent, {"--disable-prometheus"}, std::nullopt).ok());
  CHECK_FALSE(
      BuildReleaseConfig(FlagSet::kCurrent, {"--sim-flag-set", "older"}, std::nullopt).ok());
}

TEST_CASE("Imitated release: --sim-l2-config=no-eviction ignores the eviction block") {
  const std::string adapter = R"({"type":"fs","base_path":"/tmp/l2","max_capacity_gb":1,)"
                              R"("eviction":{"eviction_policy":"LRU","trigger_watermark":0.5}})";
  absl::StatusOr<L2FsOptions> current = ParseL2AdapterJson(adapter, 1e-3);
  REQUIRE(current.ok());
  CHECK(current->eviction.has_value());
  absl::StatusOr<L2FsOptions> older =
      ParseL2AdapterJson(adapter, 1e-3, L2ConfigGeneration::kNoEviction);
  REQUIRE(older.ok());
  CHECK_FALSE(older->eviction.has_value());
  CHECK(older->max_capacity_bytes == int64_t{1} << 30);  // GiB, as upstream's * 1024**3
  // Not even checked: that parser never looks at it.
  const std::string bad_block =
      R"({"type":"fs","base_path":"/tmp/l2","eviction":{"eviction_policy":"FIFO"}})";
  CHECK_FALSE(ParseL2AdapterJson(bad_block, 1e-3).ok());
  CHECK(ParseL2AdapterJson(bad_block, 1e-3, L2ConfigGeneration::kNoEviction).ok());
  absl::StatusOr<ServerConfig> config = BuildReleaseConfig(
      FlagSet::kCurrent, {"--l2-adapter", adapter, "--sim-l2-config", "no-eviction"}, std::nullopt);
  REQUIRE(config.ok());
  REQUIRE(config->l2.has_value());
  CHECK_FALSE(config->l2->eviction.has_value());
}

TEST_CASE("Imitated release: the throughput families under either generation's names") {
  const bool gbs = GENERATE(false, true);
  INFO("gbs_GB_per_second: " << gbs);
  LmcacheMetrics::Options options;
  options.l2_name = "fs";
  options.throughput_names = gbs ? ThroughputNames::kGbsGbPerSecond : ThroughputNames::kGbPerSecond;
  LmcacheMetrics metrics(options);
  metrics.RecordStore("m", 1);
  metrics.RecordLoad("m", 1);
  metrics.RecordL2Store(1, 1000, absl::Milliseconds(1));
  metrics.RecordL2Load(1, 1000, absl::Milliseconds(1));
  const std::string text = metrics.Render();
  for (const char* base : {"lmcache_mp_l0_l1_store_throughput", "lmcache_mp_l0_l1_load_throughput",
                           "lmcache_mp_l2_store_throughput", "lmcache_mp_l2_load_throughput"}) {
    INFO(base);
    const std::string name = std::string(base) + "_GB_per_second";
    const std::string gbs_name = std::string(base) + "_gbs_GB_per_second";
    CHECK(HasFamily(text, name) == !gbs);
    CHECK(HasFamily(text, gbs_name) == gbs);
    CHECK_FALSE(HasFamily(text, std::string(base) + "_gbs"));  // no release exports it
  }
}

}  // namespace
}  // namespace kvbench::sim::lmcache
