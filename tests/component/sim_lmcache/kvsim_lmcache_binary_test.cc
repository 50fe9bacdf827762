// The real kvsim-lmcache binary, as the agent runs it: flag errors, readiness, /healthcheck,
// /metrics, a client over ZMQ, L2 files on disk, and a clean exit on SIGTERM.

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
#include "tests/component/sim_lmcache/metrics_text.h"
#include "tests/support/sim_process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench::sim::lmcache {
namespace {

using ::kvbench::sim::lmcache::testing::HasFamily;
using ::kvbench::sim::lmcache::testing::ValueOr0;
using ::kvbench::testing::SimProcess;
using ::kvbench::testing::TempDir;
using ::kvbench::testing::WaitFor;

constexpr absl::Duration kLongWait = absl::Seconds(20);
constexpr int64_t kChunkBytes = int64_t{256} * 131072;

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
  REQUIRE((*client)->Store({1, 2, 3, 4}, kChunkBytes).ok());
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
  for (const char* name : {"lmcache_mp_l1_usage_ratio",
                           "lmcache_mp_l1_memory_usage_bytes",
                           "lmcache_mp_l1_eviction_loop_ticks_total",
                           "lmcache_mp_l1_eviction_loop_triggered_total",
                           "lmcache_mp_l1_evicted_chunks_total",
                           "lmcache_mp_l1_read_chunks_total",
                           "lmcache_mp_l1_write_chunks_total",
                           "lmcache_mp_l2_usage_bytes",
                           "lmcache_mp_l2_store_completed_requests_total",
                           "lmcache_mp_l2_load_completed_requests_total",
                           "lmcache_mp_l0_l1_store_throughput_GB_per_second",
                           "lmcache_mp_l0_l1_load_throughput_GB_per_second",
                           "lmcache_mp_l2_store_throughput_GB_per_second",
                           "lmcache_mp_l2_load_throughput_GB_per_second",
                           "lmcache_mp_num_chunks_loaded_total",
                           "lmcache_mp_lookup_requested_tokens_total",
                           "lmcache_mp_lookup_hit_tokens_total",
                           "lmcache_mp_lookup_hit_l1_tokens_total",
                           "lmcache_mp_lookup_hit_l2_tokens_total",
                           "lmcache_mp_lookups_requests_total"}) {
    INFO(name);
    CHECK(HasFamily(metrics, name));
  }
  CHECK(ValueOr0(metrics, "lmcache_mp_lookup_hit_tokens_total{model_name=\"test-model\"}") == 1024);
  CHECK(ValueOr0(metrics, "lmcache_mp_l1_memory_usage_bytes") == 4 * kChunkBytes);

  // clear-cache empties L1; the chunks are still L2 hits.
  absl::StatusOr<HttpResponse> cleared = (*http)->PostJson(server.url() + "/clear-cache", "");
  REQUIRE(cleared.ok());
  CHECK(cleared->status == 200);
  absl::StatusOr<ExternalLookup> lookup = (*client)->Lookup({1, 2, 3, 4});
  REQUIRE(lookup.ok());
  CHECK(lookup->hit_chunks == 4);
  CHECK(lookup->l2_chunks == 4);
  CHECK((*client)->Load({1, 2, 3, 4})->l2_chunks == 4);

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

}  // namespace
}  // namespace kvbench::sim::lmcache
