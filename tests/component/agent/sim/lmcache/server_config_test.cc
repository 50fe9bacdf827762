// `kvsim-lmcache server` flags: upstream names and defaults, and the errors that name the flag.

#include "agent/sim/lmcache/server_config.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kvbench::sim::lmcache {
namespace {

struct Parsed {
  bool ok = false;
  std::string error;  // CLI11's or BuildServerConfig's message
  ServerConfig config;
};

Parsed Parse(std::vector<std::string> args) {
  CLI::App app{"test"};
  app.require_subcommand(1);
  CLI::App* server = app.add_subcommand("server");
  ServerFlags flags;
  AddServerFlags(server, &flags);
  args.insert(args.begin(), "kvsim-lmcache");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  Parsed parsed;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& error) {
    parsed.error = error.what();
    return parsed;
  }
  absl::StatusOr<ServerConfig> config = BuildServerConfig(flags);
  if (!config.ok()) {
    parsed.error = std::string(config.status().message());
    return parsed;
  }
  parsed.ok = true;
  parsed.config = *config;
  return parsed;
}

TEST_CASE("Lmcache server flags: upstream defaults") {
  Parsed parsed = Parse({"server", "--l1-size-gb", "2", "--eviction-policy", "LRU"});
  INFO(parsed.error);
  REQUIRE(parsed.ok);
  const ServerConfig& config = parsed.config;
  CHECK(config.zmq_endpoint == "tcp://127.0.0.1:5555");  // localhost binds loopback
  CHECK(config.http_host == "127.0.0.1");
  CHECK(config.http_port == 8080);
  CHECK(config.store.chunk_size == 256);
  CHECK(config.store.l1_capacity_bytes == int64_t{2} << 30);
  CHECK(config.store.evict);
  CHECK(config.store.trigger_watermark == 0.8);
  CHECK(config.store.eviction_ratio == 0.2);
  CHECK_FALSE(config.l2.has_value());
  CHECK(config.max_workers == 1);
  CHECK(config.metrics_sample_rate == 0.01);
  CHECK(config.time_scale == 1.0);
}

TEST_CASE("Lmcache server flags: the reference command line") {
  Parsed parsed =
      Parse({"server",
             "--host",
             "127.0.0.1",
             "--port",
             "0",
             "--http-host",
             "127.0.0.1",
             "--http-port",
             "0",
             "--chunk-size",
             "128",
             "--max-workers",
             "4",
             "--l1-size-gb",
             "0.5",
             "--no-l1-use-lazy",
             "--eviction-policy",
             "noop",
             "--eviction-trigger-watermark",
             "0.9",
             "--eviction-ratio",
             "0.99",
             "--l2-adapter",
             R"({"type":"fs","base_path":"/tmp/l2","max_capacity_gb":1.5,"recover_on_start":true,)"
             R"("eviction":{"eviction_policy":"LRU","eviction_ratio":0.1}})",
             "--metrics-sample-rate",
             "1.0",
             "--sim-time-scale",
             "0.01",
             "--sim-l2-bytes-scale",
             "0.5",
             "--sim-seed",
             "7"});
  INFO(parsed.error);
  REQUIRE(parsed.ok);
  const ServerConfig& config = parsed.config;
  CHECK(config.zmq_endpoint == "tcp://127.0.0.1:*");
  CHECK(config.http_port == 0);
  CHECK(config.store.chunk_size == 128);
  CHECK(config.store.l1_capacity_bytes == int64_t{1} << 29);
  CHECK_FALSE(config.store.evict);
  CHECK(config.store.eviction_ratio == 0.99);
  REQUIRE(config.l2.has_value());
  CHECK(config.l2->base_path == "/tmp/l2");
  CHECK(config.l2->max_capacity_bytes == int64_t{3} << 29);
  CHECK(config.l2->bytes_scale == 0.5);
  REQUIRE(config.l2->eviction.has_value());
  CHECK(config.l2->eviction->policy == "LRU");
  CHECK(config.l2->eviction->trigger_watermark == 0.8);  // upstream's default
  CHECK(config.l2->eviction->eviction_ratio == 0.1);
  CHECK(config.max_workers == 4);
  CHECK(config.time_scale == 0.01);
  CHECK(config.seed == 7);
}

TEST_CASE("Lmcache server flags: errors name the flag") {
  struct Case {
    std::string name;
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<std::string> required = {"--l1-size-gb", "1", "--eviction-policy", "LRU"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"server"};
    args.insert(args.end(), required.begin(), required.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const std::vector<Case> cases = {
      {"no subcommand", {"--l1-size-gb", "1"}, ""},
      {"missing l1 size", {"server", "--eviction-policy", "LRU"}, "--l1-size-gb"},
      {"missing policy", {"server", "--l1-size-gb", "1"}, "--eviction-policy"},
      {"unknown policy", with({"--eviction-policy", "FIFO"}), "FIFO"},
      {"unknown flag", with({"--bogus-flag", "1"}), "--bogus-flag"},
      {"watermark range", with({"--eviction-trigger-watermark", "1.5"}),
       "--eviction-trigger-watermark"},
      {"bad l2 JSON", with({"--l2-adapter", "{type:fs"}), "--l2-adapter: not valid JSON"},
      {"l2 type", with({"--l2-adapter", R"({"type":"s3","bucket":"b"})"}),
       "type \"s3\" is not simulated"},
      {"l2 base_path", with({"--l2-adapter", R"({"type":"fs"})"}), "base_path is required"},
      {"l2 unknown field", with({"--l2-adapter", R"({"type":"fs","base_path":"/x","nope":1})"}),
       "unknown field \"nope\""},
      {"l2 capacity",
       with({"--l2-adapter", R"({"type":"fs","base_path":"/x","max_capacity_gb":-1})"}),
       "max_capacity_gb"},
      {"l2 eviction without a policy",
       with({"--l2-adapter", R"({"type":"fs","base_path":"/x","eviction":{}})"}),
       "eviction.eviction_policy must be"},
      {"l2 eviction policy",
       with({"--l2-adapter",
             R"({"type":"fs","base_path":"/x","eviction":{"eviction_policy":"ARC"}})"}),
       "got \"ARC\""},
      {"l2 eviction ratio",
       with({"--l2-adapter", R"({"type":"fs","base_path":"/x",)"
                             R"("eviction":{"eviction_policy":"LRU","eviction_ratio":2}})"}),
       "eviction.eviction_ratio must be a number in [0, 1]"},
      {"l2 eviction unknown field",
       with({"--l2-adapter", R"({"type":"fs","base_path":"/x",)"
                             R"("eviction":{"eviction_policy":"LRU","when":1}})"}),
       "unknown field \"eviction.when\""},
      {"two l2 adapters",
       with({"--l2-adapter", R"({"type":"fs","base_path":"/a"})", "--l2-adapter",
             R"({"type":"fs","base_path":"/b"})"}),
       "--l2-adapter given 2 times"},
      {"grpc transport", with({"--transport", "grpc"}), "--transport"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    Parsed parsed = Parse(c.args);
    CHECK_FALSE(parsed.ok);
    CHECK_THAT(parsed.error, Catch::Contains(c.message));
  }
}

}  // namespace
}  // namespace kvbench::sim::lmcache
