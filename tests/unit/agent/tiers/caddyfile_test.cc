#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/tiers/tier_renderer.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/agent/tiers/tiers_test_fixtures.h"

namespace kvbench::agent::tiers {
namespace {

using testing::TestJob;
using testing::TestScenario;
using testing::TestWiring;

v1::JobSpec Job(v1::OffloadRouting routing = v1::OFFLOAD_ROUTING_UNSPECIFIED, int replicas = 2) {
  v1::JobSpec job = TestJob(v1::SIM, v1::NVIDIA, replicas);
  job.set_offload_routing(routing);
  return job;
}

// kv-runner's request timeout: 18 h.
constexpr absl::Duration kRequestTimeout = absl::Hours(18);

TEST_CASE("Golden Caddyfile: CPU_RAM, 2 replicas (caddy.md's verified recommendation)") {
  CHECK(RenderCaddyfile(Job(), TestScenario(v1::CPU_RAM), TestWiring(2), kRequestTimeout) ==
        "# kvbench scenario 00-CPU_RAM-c4, tier CPU_RAM: Caddy in front of 2 replicas "
        "(reference/caddy.md)\n"
        "# upstreams {env.KV_REPLICA_0} {env.KV_REPLICA_1} = 127.0.0.2:8000 127.0.0.3:8000 "
        "(CaddyUpstreamEnv)\n"
        "{\n"
        "\tadmin 127.0.0.1:12019\n"
        "\tauto_https off\n"
        "\t# the default grace period is eternal: SIGTERM would wait for every request\n"
        "\tgrace_period 10s\n"
        "\tservers {\n"
        "\t\tmetrics\n"
        "\t}\n"
        "}\n"
        "\n"
        "http://:18080 {\n"
        "\tbind 127.0.0.1\n"
        "\treverse_proxy {env.KV_REPLICA_0} {env.KV_REPLICA_1} {\n"
        "\t\tlb_policy least_conn\n"
        "\t\thealth_uri /health\n"
        "\t\thealth_interval 10s\n"
        "\t\thealth_timeout 5s\n"
        "\t\tfail_duration 30s\n"
        "\t\tmax_fails 3\n"
        "\t\t# no proxy timeout: requests may run 18h (the client's limit)\n"
        "\t}\n"
        "}\n");
}

TEST_CASE("The Caddyfile's policy: sticky by user for GPU, least_conn with a cache server") {
  for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) {
    INFO(v1::Tier_Name(tier));
    const std::string caddyfile =
        RenderCaddyfile(Job(), TestScenario(tier), TestWiring(2), kRequestTimeout);
    const bool gpu = tier == v1::GPU;
    CHECK((caddyfile.find("\t\tlb_policy header X-User-Id\n") != std::string::npos) == gpu);
    CHECK((caddyfile.find("\t\tlb_policy least_conn\n") != std::string::npos) == !gpu);
  }
}

TEST_CASE("offload_routing STICKY routes CPU_RAM and NVME as GPU, LEAST_CONN as the default") {
  struct Case {
    v1::OffloadRouting routing;
    v1::Tier tier;
    bool sticky;
  };
  for (const Case& c : std::vector<Case>{{v1::OFFLOAD_ROUTING_UNSPECIFIED, v1::GPU, true},
                                         {v1::OFFLOAD_ROUTING_UNSPECIFIED, v1::CPU_RAM, false},
                                         {v1::OFFLOAD_ROUTING_LEAST_CONN, v1::GPU, true},
                                         {v1::OFFLOAD_ROUTING_LEAST_CONN, v1::NVME, false},
                                         {v1::OFFLOAD_ROUTING_STICKY, v1::GPU, true},
                                         {v1::OFFLOAD_ROUTING_STICKY, v1::CPU_RAM, true},
                                         {v1::OFFLOAD_ROUTING_STICKY, v1::NVME, true}}) {
    INFO(v1::OffloadRouting_Name(c.routing) << " " << v1::Tier_Name(c.tier));
    const std::string caddyfile =
        RenderCaddyfile(Job(c.routing), TestScenario(c.tier), TestWiring(2), kRequestTimeout);
    CHECK((caddyfile.find("\t\tlb_policy header X-User-Id\n") != std::string::npos) == c.sticky);
    CHECK((caddyfile.find("\t\tlb_policy least_conn\n") != std::string::npos) == !c.sticky);
    CHECK(RoutesSticky(Job(c.routing), c.tier) == c.sticky);
    CHECK(ScenarioRouting(Job(c.routing), c.tier) == (c.sticky ? "sticky" : "least_conn"));
    // One replica: nothing is routed, whatever the option.
    CHECK(ScenarioRouting(Job(c.routing, 1), c.tier).empty());
  }
}

TEST_CASE("The Caddyfile never has a directive caddy.md forbids, nor a host in the address") {
  for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) {
    for (int replicas : {2, 3}) {
      const std::string caddyfile =
          RenderCaddyfile(Job(), TestScenario(tier), TestWiring(replicas), kRequestTimeout);
      INFO(caddyfile);
      for (const char* forbidden :
           {"flush_interval", "lb_try_duration", "lb_try_interval", "lb_retries", "buffer_requests",
            "response_header_timeout", "read_timeout", "write_timeout", "http://127.",
            "http://localhost", "persist_config"}) {
        CHECK(caddyfile.find(forbidden) == std::string::npos);
      }
      CHECK(caddyfile.find(absl::StrCat("127.0.0.", 1 + replicas, ":8000")) != std::string::npos);
    }
  }
}

// Runs `caddy <verb> --config Caddyfile --adapter caddyfile` in `dir` (its data and config
// folders there too), requiring exit 0; stdout lands in dir/out.txt.
void RunCaddy(const kvbench::testing::TempDir& dir, const char* verb) {
  const std::string command = absl::StrCat(
      "cd ", dir.path(), " && XDG_DATA_HOME=", dir.path(), " XDG_CONFIG_HOME=", dir.path(),
      " caddy ", verb, " --config Caddyfile --adapter caddyfile >out.txt 2>err.txt");
  const int status = std::system(command.c_str());
  INFO(command << "\n" << dir.ReadFile("err.txt"));
  REQUIRE(status == 0);
}

// `caddy validate` (modules provisioned) and `caddy adapt` of a rendered Caddyfile: the JSON
// Caddy 2.6.2 would run.
nlohmann::json Adapt(const std::string& caddyfile) {
  kvbench::testing::TempDir dir;
  dir.WriteFile("Caddyfile", caddyfile);
  RunCaddy(dir, "validate");
  RunCaddy(dir, "adapt");
  nlohmann::json adapted = nlohmann::json::parse(dir.ReadFile("out.txt"), nullptr, false);
  REQUIRE_FALSE(adapted.is_discarded());
  return adapted;
}

TEST_CASE("The real caddy (2.6.2, deploy/setup.sh) accepts the rendered Caddyfiles", "[caddy]") {
  for (v1::Tier tier : {v1::GPU, v1::CPU_RAM}) {
    INFO(v1::Tier_Name(tier));
    nlohmann::json adapted =
        Adapt(RenderCaddyfile(Job(), TestScenario(tier), TestWiring(2), kRequestTimeout));
    // CPU_RAM with offload_routing STICKY adapts to the GPU tier's header policy.
    if (tier == v1::CPU_RAM) {
      const std::string sticky =
          Adapt(RenderCaddyfile(Job(v1::OFFLOAD_ROUTING_STICKY), TestScenario(tier), TestWiring(2),
                                kRequestTimeout))
              .dump();
      CHECK(sticky.find(R"({"field":"X-User-Id","policy":"header"})") != std::string::npos);
    }
    INFO(adapted.dump(2));
    CHECK(adapted["admin"]["listen"] == "127.0.0.1:12019");
    const nlohmann::json& http = adapted["apps"]["http"];
    CHECK(http["grace_period"] == 10'000'000'000LL);
    REQUIRE(http["servers"].size() == 1);
    const nlohmann::json& server = http["servers"].begin().value();
    CHECK(server["listen"] == nlohmann::json::array({"127.0.0.1:18080"}));
    CHECK(server.contains("metrics"));
    CHECK(server["automatic_https"]["disable"] == true);
    // The one route has no matcher (no Host pitfall) and ends in the reverse proxy.
    REQUIRE(server["routes"].size() == 1);
    CHECK_FALSE(server["routes"][0].contains("match"));
    const std::string text = server["routes"][0].dump();
    CHECK(text.find(R"("handler":"reverse_proxy")") != std::string::npos);
    CHECK(text.find(R"({"dial":"{env.KV_REPLICA_0}"},{"dial":"{env.KV_REPLICA_1}"})") !=
          std::string::npos);
    CHECK(text.find(tier == v1::GPU ? R"({"field":"X-User-Id","policy":"header"})"
                                    : R"({"policy":"least_conn"})") != std::string::npos);
    CHECK(text.find(R"("active":{"interval":10000000000,"timeout":5000000000,"uri":"/health"})") !=
          std::string::npos);
    CHECK(text.find(R"("passive":{"fail_duration":30000000000,"max_fails":3})") !=
          std::string::npos);
    CHECK(text.find("transport") == std::string::npos);
  }
}

}  // namespace
}  // namespace kvbench::agent::tiers
