// vLLM's --kv-transfer-config for LMCacheMPConnector, as kvsim-vllm parses it.

#include "agent/sim/lmcache/lmcache_connector_config.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kvbench::sim::lmcache {
namespace {

TEST_CASE("Lmcache kv-transfer-config: valid configs and defaults") {
  struct Case {
    std::string name;
    std::string json;
    std::string host;
    int port;
    double timeout_s;
  };
  const std::vector<Case> cases = {
      {"defaults", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both"})",
       "tcp://localhost", 5555, 300},
      {"full example",
       R"({"kv_connector":"LMCacheMPConnector",
           "kv_connector_module_path":"lmcache.integration.vllm.lmcache_mp_connector",
           "kv_role":"kv_both",
           "kv_connector_extra_config":{"lmcache.mp.host":"tcp://127.0.0.1","lmcache.mp.port":5555,
                                        "lmcache.mp.mq_timeout":300.0}})",
       "tcp://127.0.0.1", 5555, 300},
      {"bare host", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
           "kv_connector_extra_config":{"lmcache.mp.host":"10.0.0.1","lmcache.mp.port":6555}})",
       "tcp://10.0.0.1", 6555, 300},
      {"string port", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
           "kv_connector_extra_config":{"lmcache.mp.port":"6566"}})",
       "tcp://localhost", 6566, 300},
      {"number and string timeout", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
           "kv_connector_extra_config":{"lmcache.mp.mq_timeout":"0.5",
                                        "lmcache.mp.heartbeat_interval":5}})",
       "tcp://localhost", 5555, 0.5},
      {"null extra config", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
           "kv_connector_extra_config":null})",
       "tcp://localhost", 5555, 300},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    absl::StatusOr<LmcacheConnectorConfig> config = ParseKvTransferConfig(c.json);
    INFO(config.status().ToString());
    REQUIRE(config.ok());
    CHECK(config->connector == "LMCacheMPConnector");
    CHECK(config->kv_role == "kv_both");
    CHECK(config->host == c.host);
    CHECK(config->port == c.port);
    CHECK(absl::ToDoubleSeconds(config->mq_timeout) == Approx(c.timeout_s));
  }
}

TEST_CASE("Lmcache kv-transfer-config: errors are INVALID_ARGUMENT naming the key") {
  struct Case {
    std::string name;
    std::string json;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"bad JSON", R"({"kv_connector":)", "not valid JSON"},
      {"not an object", R"(["LMCacheMPConnector"])", "must be a JSON object"},
      {"no connector", R"({"kv_role":"kv_both"})", "kv_connector"},
      {"wrong connector", R"({"kv_connector":"OffloadingConnector","kv_role":"kv_both"})",
       "kv_connector \"OffloadingConnector\" is not simulated"},
      {"missing kv_role", R"({"kv_connector":"LMCacheMPConnector"})", "kv_role is required"},
      {"wrong kv_role", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_producer"})",
       "kv_role \"kv_producer\""},
      {"kv_role not a string", R"({"kv_connector":"LMCacheMPConnector","kv_role":1})", "kv_role"},
      {"port not a number", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
           "kv_connector_extra_config":{"lmcache.mp.port":"abc"}})",
       "lmcache.mp.port must be an integer"},
      {"port fraction", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
           "kv_connector_extra_config":{"lmcache.mp.port":5555.5}})",
       "lmcache.mp.port must be an integer"},
      {"port range", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
           "kv_connector_extra_config":{"lmcache.mp.port":70000}})",
       "lmcache.mp.port must be in [1, 65535]"},
      {"grpc host", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
           "kv_connector_extra_config":{"lmcache.mp.host":"grpc://h"}})",
       "lmcache.mp.host"},
      {"zero timeout", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
           "kv_connector_extra_config":{"lmcache.mp.mq_timeout":0}})",
       "lmcache.mp.mq_timeout must be a positive"},
      {"extra config not an object", R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
           "kv_connector_extra_config":"x"})",
       "kv_connector_extra_config must be an object"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    absl::StatusOr<LmcacheConnectorConfig> config = ParseKvTransferConfig(c.json);
    REQUIRE_FALSE(config.ok());
    CHECK(config.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(config.status().message()), Catch::Contains(c.message));
  }
}

TEST_CASE("Lmcache host normalization") {
  CHECK(*NormalizeLmcacheHost("127.0.0.1") == "tcp://127.0.0.1");
  CHECK(*NormalizeLmcacheHost("tcp://cache-host") == "tcp://cache-host");
  CHECK_FALSE(NormalizeLmcacheHost("").ok());
  CHECK_FALSE(NormalizeLmcacheHost("tcp://").ok());
  CHECK_FALSE(NormalizeLmcacheHost("grpc://h").ok());
}

}  // namespace
}  // namespace kvbench::sim::lmcache
