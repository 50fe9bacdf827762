// The real kvsim-lmcache binary, as the agent runs it: flag errors, readiness, /healthcheck,
// /metrics, a client over ZMQ, L2 files on disk, and a clean exit on SIGTERM.

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <memory>
#include <regex>
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
#include "tests/support/wait_for.h"

namespace kvbench::sim::lmcache {
namespace {

using ::kvbench::sim::lmcache::testing::HasFamily;
using ::kvbench::sim::lmcache::testing::Series;
using ::kvbench::sim::lmcache::testing::ValueOr0;
using ::kvbench::testing::SimProcess;
using ::kvbench::testing::TempDir;
using ::kvbench::testing::WaitFor;

constexpr absl::Duration kLongWait = absl::Seconds(20);
using ::kvbench::sim::lmcache::testing::kLlamaChunkBytes;

struct Exit {
  ExitStatus status;
  std::string log;
};

// Runs kvsim-lmcache with `args` to completion.
Exit RunToExit(const std::vector<std::string>& args) {
  TempDir dir;
  ProcessSpec spec;
  spec.name = "kvsim-lmcache";
  spec.argv = {KV_SIM_LMCACHE_PATH};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = dir.File("log");
  PosixProcessLauncher launcher;
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Launch(spec);
  REQUIRE(process.ok());
  absl::StatusOr<ExitStatus> status = (*process)->Wait(kLongWait);
  REQUIRE(status.ok());
  return Exit{*status, dir.ReadFile("log")};
}

TEST_CASE("Lmcache binary: flag errors exit 2 naming the flag") {
  struct Case {
    std::string name;
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"missing --l1-size-gb", {"server", "--eviction-policy", "LRU"}, "--l1-size-gb"},
      {"unknown flag",
       {"server", "--l1-size-gb", "1", "--eviction-policy", "LRU", "--no-such-flag"},
       "--no-such-flag"},
      {"bad --l2-adapter JSON",
       {"server", "--l1-size-gb", "1", "--eviction-policy", "LRU", "--l2-adapter", "{\"type\":"},
       "--l2-adapter"},
      {"unsimulated L2 type",
       {"server", "--l1-size-gb", "1", "--eviction-policy", "LRU", "--l2-adapter",
        R"({"type":"nixl_store"})"},
       "nixl_store"},
      {"no subcommand", {"--l1-size-gb", "1"}, "server"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    Exit exit = RunToExit(c.args);
    INFO(exit.log);
    CHECK(exit.status == ExitStatus{false, 2, 0});
    CHECK_THAT(exit.log, Catch::Contains(c.message));
  }
}

TEST_CASE("Lmcache binary: serves health, metrics and clients, writes L2 files, exits 0 on TERM") {
  TempDir dir;
  const std::string l2_path = dir.File("l2");
  SimProcess server("kvsim-lmcache",
                    {KV_SIM_LMCACHE_PATH, "server", "--host", "127.0.0.1", "--port", "0",
                     "--http-port", "0", "--l1-size-gb", "1", "--eviction-policy", "LRU",
                     "--l2-adapter", R"({"type":"fs","base_path":")" + l2_path + R"("})",
                     "--metrics-sample-rate", "1.0", "--sim-time-scale", "0.01"},
                    " http=");
  REQUIRE(server.Start());
  const std::string log = server.log();
  CHECK_THAT(log, Catch::Contains("LMCache cache server is running..."));
  std::smatch match;
  REQUIRE(std::regex_search(log, match, std::regex("zmq=tcp://127\\.0\\.0\\.1:([0-9]+)")));
  int zmq_port = 0;
  REQUIRE(absl::SimpleAtoi(match[1].str(), &zmq_port));

  absl::StatusOr<std::unique_ptr<CurlHttpClient>> http = CurlHttpClient::Create();
  REQUIRE(http.ok());
  absl::StatusOr<HttpResponse> health = (*http)->Get(server.url() + "/healthcheck");
  REQUIRE(health.ok());
  CHECK(health->status == 200);
  CHECK(health->body == R"({"status":"healthy"})");

  absl::StatusOr<std::unique_ptr<LmcacheClient>> client =
      LmcacheClient::Connect("tcp://127.0.0.1", zmq_port, kLongWait, "test-model");
  REQUIRE(client.ok());
  REQUIRE((*client)->Store({1, 2, 3, 4}, kLlamaChunkBytes).ok());
  CHECK((*client)->Lookup({1, 2, 3, 4, 5})->hit_chunks == 4);
  // Write-through to L2: four chunk files appear under base_path.
  auto file_count = [&] {
    size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(l2_path)) {
      if (entry.is_regular_file() && entry.path().extension() == ".data") ++files;
    }
    return files;
  };
  CHECK(WaitFor([&] { return file_count() == 4; }, kLongWait));

  std::string metrics;
  // The eviction loop ticks every 10 ms at this time scale.
  CHECK(WaitFor(
      [&] {
        absl::StatusOr<HttpResponse> response = (*http)->Get(server.url() + "/metrics");
        if (!response.ok() || response->status != 200) return false;
        metrics = response->body;
        return ValueOr0(metrics, "lmcache_mp_l1_eviction_loop_ticks_total") >= 2 &&
               ValueOr0(metrics,
                        "lmcache_mp_l2_store_completed_objects_chunks_total{l2_name=\"fs\"}") == 4;
      },
      kLongWait));
  for (const char* name :
       {"lmcache_mp_l1_usage_ratio", "lmcache_mp_l1_memory_usage_bytes",
        "lmcache_mp_l1_eviction_loop_ticks_total", "lmcache_mp_l1_write_chunks_total",
        "lmcache_mp_l2_usage_bytes", "lmcache_mp_l2_store_completed_requests_total",
        "lmcache_mp_l0_l1_store_throughput_GB_per_second",
        "lmcache_mp_l2_store_throughput_GB_per_second", "lmcache_mp_lookup_requested_tokens_total",
        "lmcache_mp_lookup_hit_tokens_total", "lmcache_mp_lookup_hit_l1_tokens_total",
        "lmcache_mp_lookup_hit_l2_tokens_total", "lmcache_mp_lookups_requests_total",
        "lmcache_mp_event_bus_dropped_events_total"}) {
    INFO(name);
    CHECK(HasFamily(metrics, name));
  }
  // Counters appear at their first increment: nothing was evicted from this 1 GB L1.
  CHECK_FALSE(HasFamily(metrics, "lmcache_mp_l1_evicted_chunks_total"));
  CHECK_FALSE(HasFamily(metrics, "lmcache_mp_l1_eviction_loop_triggered_total"));
  CHECK(ValueOr0(metrics, "lmcache_mp_lookup_hit_tokens_total{model_name=\"test-model\"}") == 1024);
  CHECK(ValueOr0(metrics, "lmcache_mp_l1_memory_usage_bytes") == 4 * kLlamaChunkBytes);

  // clear-cache empties L1; the chunks are still L2 hits.
  absl::StatusOr<HttpResponse> cleared = (*http)->PostJson(server.url() + "/clear-cache", "");
  REQUIRE(cleared.ok());
  CHECK(cleared->status == 200);
  absl::StatusOr<ExternalLookup> lookup = (*client)->Lookup({1, 2, 3, 4});
  REQUIRE(lookup.ok());
  CHECK(lookup->hit_chunks == 4);
  CHECK(lookup->l2_chunks == 4);
  CHECK((*client)->Load({1, 2, 3, 4})->l2_chunks == 4);
  // The load-side counters and histograms appear with the first load (upstream's exporter has
  // no data point before it).
  const char* const loaded_families[] = {"lmcache_mp_l1_read_chunks_total",
                                         "lmcache_mp_l2_load_completed_requests_total",
                                         "lmcache_mp_l2_prefetch_load_completed_chunks_total",
                                         "lmcache_mp_l0_l1_load_throughput_GB_per_second",
                                         "lmcache_mp_l2_load_throughput_GB_per_second",
                                         "lmcache_mp_num_chunks_loaded_total"};
  CHECK(WaitFor(
      [&] {
        absl::StatusOr<HttpResponse> response = (*http)->Get(server.url() + "/metrics");
        if (!response.ok() || response->status != 200) return false;
        metrics = response->body;
        return std::all_of(std::begin(loaded_families), std::end(loaded_families),
                           [&](const char* name) { return HasFamily(metrics, name); });
      },
      kLongWait));
  for (const char* name : loaded_families) {
    INFO(name);
    CHECK(HasFamily(metrics, name));
  }

  absl::StatusOr<HttpResponse> status = (*http)->Get(server.url() + "/status");
  REQUIRE(status.ok());
  CHECK_THAT(status->body, Catch::Contains(R"("l2":{"chunks":4)"));
  absl::StatusOr<HttpResponse> reset = (*http)->PostJson(server.url() + "/metrics/reset", "");
  REQUIRE(reset.ok());
  CHECK(reset->status == 200);
  absl::StatusOr<HttpResponse> after = (*http)->Get(server.url() + "/metrics");
  REQUIRE(after.ok());
  CHECK(ValueOr0(after->body, "lmcache_mp_lookups_requests_total") == 0);

  REQUIRE(server.process()->Signal(SIGTERM).ok());
  absl::StatusOr<ExitStatus> exit = server.process()->Wait(kLongWait);
  REQUIRE(exit.ok());
  INFO(server.log());
  CHECK(exit->success());
}

// A started kvsim-lmcache with `extra` flags, its ZMQ client and HTTP client.
struct Running {
  explicit Running(const std::vector<std::string>& extra, const std::string& l1_size_gb = "1") {
    std::vector<std::string> argv = {KV_SIM_LMCACHE_PATH,
                                     "server",
                                     "--host",
                                     "127.0.0.1",
                                     "--port",
                                     "0",
                                     "--http-port",
                                     "0",
                                     "--l1-size-gb",
                                     l1_size_gb,
                                     "--eviction-policy",
                                     "LRU",
                                     "--sim-time-scale",
                                     "0.01"};
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
    auto connected = LmcacheClient::Connect("tcp://127.0.0.1", zmq_port, kLongWait, "m");
    REQUIRE(connected.ok());
    client = std::move(*connected);
  }
  // GET url's body; "" unless 200.
  std::string Get(const std::string& url) {
    absl::StatusOr<HttpResponse> response = http->Get(url);
    return response.ok() && response->status == 200 ? response->body : "";
  }
  int Status(const std::string& url) {
    absl::StatusOr<HttpResponse> response = http->Get(url);
    return response.ok() ? response->status : 0;
  }
  std::string Metrics() { return Get(server->url() + "/metrics"); }

  std::unique_ptr<SimProcess> server;
  std::unique_ptr<CurlHttpClient> http;
  std::unique_ptr<LmcacheClient> client;
};

size_t DataFiles(const std::string& dir) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".data") ++files;
  }
  return files;
}

TEST_CASE("Lmcache binary: the fs L2 stays bounded only with an eviction block") {
  // 0.0625 GB = 2 chunks of 32 MiB. Upstream never evicts from L2 without the block
  // (l2_adapters/config.py@04aa2be9, storage manager _should_enable_l2_eviction).
  const bool with_block = GENERATE(false, true);
  INFO("eviction block: " << with_block);
  TempDir dir;
  const std::string l2_path = dir.File("l2");
  std::string adapter = R"({"type":"fs","base_path":")" + l2_path + R"(","max_capacity_gb":0.0625)";
  if (with_block) {
    adapter += R"(,"eviction":{"eviction_policy":"LRU","trigger_watermark":0.5,)"
               R"("eviction_ratio":0.5})";
  }
  adapter += "}";
  Running r({"--l2-adapter", adapter});
  const double capacity = 2.0 * kLlamaChunkBytes;
  const std::string usage = "lmcache_mp_l2_usage_bytes{l2_name=\"fs\"}";
  for (uint64_t hash = 1; hash <= 10; ++hash)
    REQUIRE(r.client->Store({hash}, kLlamaChunkBytes).ok());
  CHECK(WaitFor(
      [&] {
        return ValueOr0(r.Metrics(),
                        "lmcache_mp_l2_store_completed_objects_chunks_total{l2_name=\"fs\"}") == 10;
      },
      kLongWait));
  if (with_block) {
    // The ~1 Hz L2 eviction loop (every 10 ms here) brings the pool back under its capacity.
    CHECK(WaitFor([&] { return ValueOr0(r.Metrics(), usage) <= capacity; }, kLongWait));
    CHECK(DataFiles(l2_path) <= 2);
    CHECK(ValueOr0(r.Metrics(), "lmcache_mp_l2_evicted_objects_chunks_total{l2_name=\"fs\"}") >= 8);
  } else {
    // Many eviction-loop ticks later, all ten files and their bytes are still there.
    const double ticks = ValueOr0(r.Metrics(), "lmcache_mp_l1_eviction_loop_ticks_total");
    CHECK(WaitFor(
        [&] {
          return ValueOr0(r.Metrics(), "lmcache_mp_l1_eviction_loop_ticks_total") >= ticks + 20;
        },
        kLongWait));
    CHECK(DataFiles(l2_path) == 10);
    CHECK(ValueOr0(r.Metrics(), usage) == 10 * kLlamaChunkBytes);
  }
}

TEST_CASE("Lmcache binary: the older HTTP layout behind --sim-* flags") {
  Running r({"--sim-healthcheck-path", "/api/healthcheck", "--sim-metrics-on-prometheus-port",
             "--prometheus-port", "0"});
  std::smatch match;
  const std::string log = r.server->log();
  REQUIRE(std::regex_search(log, match, std::regex("prometheus=(http://[0-9.:]+)/metrics")));
  CHECK(r.Status(r.server->url() + "/healthcheck") == 404);
  CHECK(r.Get(r.server->url() + "/api/healthcheck") == R"({"status":"healthy"})");
  CHECK(r.Status(r.server->url() + "/metrics") == 404);
  CHECK_THAT(r.Get(match[1].str() + "/metrics"),
             Catch::Contains("lmcache_mp_event_bus_dropped_events_total"));
}

TEST_CASE("Lmcache binary: counters absent until their first increment") {
  Running r({"--no-sim-l1-usage-histogram"});
  const std::string fresh = r.Metrics();
  CHECK(HasFamily(fresh, "lmcache_mp_l1_usage_ratio"));  // gauges are observed
  CHECK(HasFamily(fresh, "lmcache_mp_event_bus_dropped_events_total"));
  CHECK_FALSE(HasFamily(fresh, "lmcache_mp_lookup_requested_tokens_total"));
  CHECK_FALSE(HasFamily(fresh, "lmcache_mp_lookup_hit_tokens_total"));
  CHECK_FALSE(HasFamily(fresh, "lmcache_mp_num_chunks_loaded_total"));
  REQUIRE(r.client->Lookup({1, 2})->hit_chunks == 0);
  const std::string after = r.Metrics();
  CHECK(Series(after, "lmcache_mp_lookup_requested_tokens_total{model_name=\"m\"}") == 512);
  CHECK(Series(after, "lmcache_mp_lookup_hit_tokens_total{model_name=\"m\"}") == 0);
}

TEST_CASE("Lmcache binary: older names, the duplicate usage family, dropped events") {
  Running r({"--sim-l1-evicted-keys-name", "--sim-event-drop-rate", "0.5", "--sim-seed", "3"});
  for (uint64_t hash = 1; hash <= 40; ++hash) {
    REQUIRE(r.client->Lookup({hash})->hit_chunks == 0);
  }
  std::string text;
  CHECK(WaitFor(
      [&] {
        text = r.Metrics();
        return text.find("lmcache_mp_l1_usage_ratio_count") != std::string::npos;
      },
      kLongWait));
  // Both families of one name, the gauge first (upstream L1Manager + L1EvictionLoopSubscriber).
  const size_t gauge = text.find("# TYPE lmcache_mp_l1_usage_ratio gauge");
  const size_t histogram = text.find("# TYPE lmcache_mp_l1_usage_ratio histogram");
  CHECK(gauge != std::string::npos);
  CHECK(histogram != std::string::npos);
  CHECK(gauge < histogram);
  const double dropped = ValueOr0(text, "lmcache_mp_event_bus_dropped_events_total");
  const double lookups = ValueOr0(text, "lmcache_mp_lookups_requests_total");
  CHECK(dropped > 0);
  CHECK(lookups < 40);  // undercounted: the dropped events never reached the counters
  CHECK(text.find("lmcache_mp_l1_evicted_chunks_total") == std::string::npos);
  // An L1 eviction under the older name.
  Running small({"--sim-l1-evicted-keys-name"}, "0.03125");  // one chunk
  REQUIRE(small.client->Store({1}, kLlamaChunkBytes).ok());
  REQUIRE(small.client->Store({2}, kLlamaChunkBytes).ok());
  CHECK(WaitFor([&] { return ValueOr0(small.Metrics(), "lmcache_mp_l1_evicted_keys_total") >= 1; },
                kLongWait));
}

}  // namespace
}  // namespace kvbench::sim::lmcache
