// The real kvsim-lmcache binary imitating older LMCache releases (--sim-* flags of
// imitated_release.h), as the agent meets them: the banner and --help it probes, argparse's
// refusal of a flag the release lacks, the older throughput names, OTLP push from the
// environment, and an L2 pool that ignores its eviction block.

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "agent/sim/lmcache/lmcache_client.h"
#include "common/http/curl_http_client.h"
#include "common/process/posix_process_launcher.h"
#include "tests/component/agent/sim/lmcache/chunk_geometry.h"
#include "tests/component/agent/sim/lmcache/metrics_text.h"
#include "tests/support/sim_process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/unused_port.h"
#include "tests/support/wait_for.h"

namespace kvbench::sim::lmcache {
namespace {

using ::kvbench::sim::lmcache::testing::HasFamily;
using ::kvbench::sim::lmcache::testing::kLlamaChunkBytes;
using ::kvbench::sim::lmcache::testing::ValueOr0;
using ::kvbench::testing::SimProcess;
using ::kvbench::testing::TempDir;
using ::kvbench::testing::UnusedLoopbackPort;
using ::kvbench::testing::WaitFor;

constexpr absl::Duration kReleaseWait = absl::Seconds(20);
constexpr char kBannerVersionPrefix[] = "LMCache v";

// How one run of kvsim-lmcache ended, its stdout and its stderr apart.
struct SplitExit {
  ExitStatus status;
  std::string out;
  std::string err;
};

// Runs kvsim-lmcache with `args` and `env` (on top of the inherited environment) to completion.
SplitExit RunReleaseToExit(const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& env = {}) {
  TempDir dir;
  ProcessSpec spec;
  spec.name = "kvsim-lmcache";
  spec.argv = {KV_SIM_LMCACHE_PATH};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = env;
  spec.stdout_path = dir.File("out");
  spec.stderr_path = dir.File("err");
  PosixProcessLauncher launcher;
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Launch(spec);
  REQUIRE(process.ok());
  absl::StatusOr<ExitStatus> status = (*process)->Wait(kReleaseWait);
  REQUIRE(status.ok());
  return SplitExit{*status, dir.ReadFile("out"), dir.ReadFile("err")};
}

// The flag names a help text shows, as the agent reads them: every `--name` token.
std::set<std::string> HelpFlagTokens(const std::string& help) {
  std::set<std::string> tokens;
  const std::regex token("--[a-z0-9][a-z0-9-]*");
  for (auto it = std::sregex_iterator(help.begin(), help.end(), token);
       it != std::sregex_iterator(); ++it) {
    tokens.insert(it->str());
  }
  return tokens;
}

size_t Occurrences(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

TEST_CASE("Lmcache release: the banner names the version on stderr, --help the flags on stdout") {
  struct Case {
    std::vector<std::string> args;
    std::string version;
  };
  const std::vector<Case> cases = {
      {{"server", "--help"}, "0.5.6"},
      {{"server", "--sim-lmcache-version=0.4.2", "--help"}, "0.4.2"},
      {{"server", "--help", "--sim-lmcache-version", "0.3.10"}, "0.3.10"},
  };
  for (const Case& c : cases) {
    INFO(c.version);
    SplitExit exit = RunReleaseToExit(c.args);
    INFO(exit.err);
    CHECK(exit.status.success());
    CHECK(Occurrences(exit.err, kBannerVersionPrefix) == 1);
    CHECK(exit.err.find(std::string(kBannerVersionPrefix) + c.version + "\n") != std::string::npos);
    CHECK(exit.err.find('\x1b') == std::string::npos);  // stderr is no terminal: no colours
    CHECK(exit.out.find(kBannerVersionPrefix) == std::string::npos);
    const std::set<std::string> flags = HelpFlagTokens(exit.out);
    for (const char* flag :
         {"--l1-size-gb", "--eviction-policy", "--l2-adapter", "--prometheus-port",
          "--metrics-sample-rate", "--otlp-endpoint", "--sim-lmcache-version"}) {
      INFO(flag);
      CHECK(flags.count(flag) == 1);
    }
  }
  // Before the parser speaks: a usage error follows the banner.
  SplitExit error = RunReleaseToExit({"server", "--sim-lmcache-version=0.4.2"});
  CHECK(error.status == ExitStatus{false, 2, 0});
  const size_t banner = error.err.find("LMCache v0.4.2");
  const size_t complaint = error.err.find("--l1-size-gb");
  CHECK(banner != std::string::npos);
  CHECK(complaint != std::string::npos);
  CHECK(banner < complaint);
  // Turned off as upstream.
  for (const char* value : {"1", "true", "YES"}) {
    INFO(value);
    SplitExit quiet = RunReleaseToExit({"server", "--help"}, {{"LMCACHE_DISABLE_BANNER", value}});
    CHECK(quiet.status.success());
    CHECK(quiet.err.find(kBannerVersionPrefix) == std::string::npos);
  }
  SplitExit loud = RunReleaseToExit({"server", "--help"}, {{"LMCACHE_DISABLE_BANNER", "0"}});
  CHECK(loud.err.find("LMCache v0.5.6") != std::string::npos);
}

TEST_CASE("Lmcache release: the prometheus-config flag set has no --metrics-sample-rate") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"server", "--sim-flag-set=prometheus-config", "--help"},
        std::vector<std::string>{"server", "--help", "--sim-flag-set", "prometheus-config"}}) {
    SplitExit help = RunReleaseToExit(args);
    INFO(help.out);
    CHECK(help.status.success());
    const std::set<std::string> flags = HelpFlagTokens(help.out);
    for (const char* flag :
         {"--prometheus-port", "--disable-prometheus", "--prometheus-log-interval",
          "--enable-telemetry", "--telemetry-max-queue-size", "--telemetry-processor", "--no-http",
          "--l1-size-gb", "--l2-adapter"}) {
      INFO(flag);
      CHECK(flags.count(flag) == 1);
    }
    CHECK(flags.count("--metrics-sample-rate") == 0);
    CHECK(flags.count("--otlp-endpoint") == 0);
  }
  // kvbench's profile flag, as that release's argparse refuses it: exit 2, usage and error on
  // stderr, and no server.
  const std::vector<std::string> base = {"server",
                                         "--sim-flag-set",
                                         "prometheus-config",
                                         "--l1-size-gb",
                                         "1",
                                         "--eviction-policy",
                                         "LRU",
                                         "--http-port",
                                         "0",
                                         "--port",
                                         "0"};
  struct Case {
    std::vector<std::string> extra;
    std::string unrecognized;
  };
  for (const Case& c : {Case{{"--metrics-sample-rate=0.01"}, "--metrics-sample-rate=0.01"},
                        Case{{"--metrics-sample-rate", "0.01"}, "--metrics-sample-rate 0.01"}}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    SplitExit refused = RunReleaseToExit(args);
    INFO(refused.err);
    CHECK(refused.status == ExitStatus{false, 2, 0});
    // After the banner, argparse's two lines (Python's argparse prints them so for an argument the
    // server's subparser hands back to the top-level parser).
    const std::string argparse_error =
        "\nusage: lmcache [-h] {mock,server} ...\n"
        "lmcache: error: unrecognized arguments: " +
        c.unrecognized + "\n";
    REQUIRE(refused.err.size() > argparse_error.size());
    CHECK(refused.err.substr(refused.err.size() - argparse_error.size()) == argparse_error);
    CHECK(refused.err.find("cache server is running") == std::string::npos);
    CHECK(refused.out.empty());
  }
}

// A started kvsim-lmcache with `extra` flags, launched through env(1) with `env` set.
struct ReleaseServer {
  explicit ReleaseServer(const std::vector<std::string>& extra,
                         const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv = {"/usr/bin/env"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.insert(argv.end(),
                {KV_SIM_LMCACHE_PATH, "server", "--host", "127.0.0.1", "--port", "0", "--http-port",
                 "0", "--l1-size-gb", "1", "--eviction-policy", "LRU", "--sim-time-scale", "0.01"});
    argv.insert(argv.end(), extra.begin(), extra.end());
    server = std::make_unique<SimProcess>("kvsim-lmcache", argv, " http=");
    REQUIRE(server->Start());
    std::smatch match;
    const std::string log = server->log();
    REQUIRE(std::regex_search(log, match, std::regex("zmq=tcp://127\\.0\\.0\\.1:([0-9]+)")));
    int zmq_port = 0;
    REQUIRE(absl::SimpleAtoi(match[1].str(), &zmq_port));
    auto created = CurlHttpClient::Create();
    REQUIRE(created.ok());
    http = std::move(*created);
    auto connected = LmcacheClient::Connect("tcp://127.0.0.1", zmq_port, kReleaseWait, "m");
    REQUIRE(connected.ok());
    client = std::move(*connected);
  }
  // The HTTP status of GET url; 0 when nothing answers.
  int StatusOf(const std::string& url) {
    absl::StatusOr<HttpResponse> response = http->Get(url);
    return response.ok() ? response->status : 0;
  }
  std::string Metrics() {
    absl::StatusOr<HttpResponse> response = http->Get(server->url() + "/metrics");
    return response.ok() && response->status == 200 ? response->body : "";
  }

  std::unique_ptr<SimProcess> server;
  std::unique_ptr<CurlHttpClient> http;
  std::unique_ptr<LmcacheClient> client;
};

TEST_CASE("Lmcache release: throughput histograms under the _gbs_GB_per_second names") {
  TempDir dir;
  const std::string l2 = R"({"type":"fs","base_path":")" + dir.File("l2") + R"("})";
  ReleaseServer r({"--l2-adapter", l2, "--metrics-sample-rate", "1.0", "--sim-throughput-names",
                   "gbs_GB_per_second"});
  REQUIRE(r.client->Store({1, 2}, kLlamaChunkBytes).ok());
  CHECK(WaitFor(
      [&] {
        return ValueOr0(r.Metrics(),
                        "lmcache_mp_l2_store_completed_objects_chunks_total{l2_name=\"fs\"}") == 2;
      },
      kReleaseWait));
  // From L2 back to L1, then to the engine: the load-side histograms.
  absl::StatusOr<HttpResponse> cleared = r.http->PostJson(r.server->url() + "/clear-cache", "");
  REQUIRE(cleared.ok());
  REQUIRE(r.client->Lookup({1, 2})->l2_chunks == 2);
  REQUIRE(r.client->Load({1, 2})->l2_chunks == 2);
  const std::vector<std::string> bases = {
      "lmcache_mp_l0_l1_store_throughput", "lmcache_mp_l0_l1_load_throughput",
      "lmcache_mp_l2_store_throughput", "lmcache_mp_l2_load_throughput"};
  std::string text;
  CHECK(WaitFor(
      [&] {
        text = r.Metrics();
        return std::all_of(bases.begin(), bases.end(), [&](const std::string& base) {
          return HasFamily(text, base + "_gbs_GB_per_second");
        });
      },
      kReleaseWait));
  for (const std::string& base : bases) {
    INFO(base);
    CHECK(HasFamily(text, base + "_gbs_GB_per_second"));
    CHECK(ValueOr0(text, base + "_gbs_GB_per_second_count" +
                             (base.find("l2") != std::string::npos ? "{l2_name=\"fs\"}"
                                                                   : "{model_name=\"m\"}")) >= 1);
    CHECK_FALSE(HasFamily(text, base + "_GB_per_second"));
    CHECK_FALSE(HasFamily(text, base + "_gbs"));
  }
}

TEST_CASE(
    "Lmcache release: OTEL_EXPORTER_OTLP_ENDPOINT empties /metrics only with --sim-otel-env") {
  struct Case {
    std::string name;
    bool sim_otel_env;
    bool variable_set;
    bool metrics_served;
  };
  const Case c = GENERATE(Case{"--sim-otel-env and the variable", true, true, false},
                          Case{"--sim-otel-env, no variable", true, false, true},
                          Case{"the variable alone (the default)", false, true, true});
  INFO(c.name);
  const std::string collector = "http://127.0.0.1:4317";
  std::vector<std::string> env = {"-u", "OTEL_EXPORTER_OTLP_ENDPOINT"};
  if (c.variable_set) env = {"OTEL_EXPORTER_OTLP_ENDPOINT=" + collector};
  std::vector<std::string> flags;
  if (c.sim_otel_env) flags.push_back("--sim-otel-env");
  // The newer layout (/metrics on the HTTP port), then the older one (on --prometheus-port).
  ReleaseServer http_layout(flags, env);
  INFO(http_layout.server->log());
  CHECK(http_layout.StatusOf(http_layout.server->url() + "/metrics") ==
        (c.metrics_served ? 200 : 404));
  CHECK(http_layout.StatusOf(http_layout.server->url() + "/healthcheck") == 200);
  const std::string pushed_line =
      "OTel MeterProvider initialised with OTLP exporter (" + collector + ")";
  CHECK((http_layout.server->log().find(pushed_line) != std::string::npos) == !c.metrics_served);

  const int prometheus_port = UnusedLoopbackPort();
  REQUIRE(prometheus_port > 0);
  flags.insert(flags.end(), {"--sim-metrics-on-prometheus-port", "--prometheus-port",
                             std::to_string(prometheus_port)});
  ReleaseServer prometheus_layout(flags, env);
  INFO(prometheus_layout.server->log());
  const std::string prometheus_url =
      "http://127.0.0.1:" + std::to_string(prometheus_port) + "/metrics";
  // Nothing listens there when metrics are pushed (0: no answer at all).
  CHECK(prometheus_layout.StatusOf(prometheus_url) == (c.metrics_served ? 200 : 0));
  CHECK(prometheus_layout.StatusOf(prometheus_layout.server->url() + "/metrics") == 404);
}

TEST_CASE("Lmcache release: --sim-l2-config=no-eviction grows L2 past max_capacity_gb") {
  // 0.0625 GiB = 2 chunks of 32 MiB; the eviction block would keep it there (the binary test
  // "the fs L2 stays bounded only with an eviction block" checks that it does by default).
  TempDir dir;
  const std::string l2_path = dir.File("l2");
  const std::string adapter =
      R"({"type":"fs","base_path":")" + l2_path +
      R"(","max_capacity_gb":0.0625,"eviction":{"eviction_policy":"LRU","trigger_watermark":0.5,)"
      R"("eviction_ratio":0.5}})";
  ReleaseServer r({"--l2-adapter", adapter, "--sim-l2-config", "no-eviction"});
  for (uint64_t hash = 1; hash <= 10; ++hash) {
    REQUIRE(r.client->Store({hash}, kLlamaChunkBytes).ok());
  }
  CHECK(WaitFor(
      [&] {
        return ValueOr0(r.Metrics(),
                        "lmcache_mp_l2_store_completed_objects_chunks_total{l2_name=\"fs\"}") == 10;
      },
      kReleaseWait));
  // Many ticks of the eviction loops later (one every 10 ms here), nothing has been evicted.
  const double ticks = ValueOr0(r.Metrics(), "lmcache_mp_l1_eviction_loop_ticks_total");
  CHECK(WaitFor(
      [&] {
        return ValueOr0(r.Metrics(), "lmcache_mp_l1_eviction_loop_ticks_total") >= ticks + 20;
      },
      kReleaseWait));
  const std::string text = r.Metrics();
  const double capacity_bytes = 0.0625 * 1024 * 1024 * 1024;
  CHECK(ValueOr0(text, "lmcache_mp_l2_usage_bytes{l2_name=\"fs\"}") == 10 * kLlamaChunkBytes);
  CHECK(ValueOr0(text, "lmcache_mp_l2_usage_bytes{l2_name=\"fs\"}") > capacity_bytes);
  CHECK_FALSE(HasFamily(text, "lmcache_mp_l2_evicted_objects_chunks_total"));
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(l2_path)) {
    if (entry.is_regular_file() && entry.path().extension() == ".data") ++files;
  }
  CHECK(files == 10);
}

}  // namespace
}  // namespace kvbench::sim::lmcache
