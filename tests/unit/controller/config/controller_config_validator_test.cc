#include "controller/config/controller_config_validator.h"

#include <catch2/catch.hpp>
#include <string>

#include "common/json/proto_json.h"
#include "tests/support/field_errors_helpers.h"

namespace kvbench {
namespace {

using testing::Fields;
using testing::Parse;

TEST_CASE("A secure controller config needs TLS and token hashes, never raw tokens") {
  auto config = Parse<v1::ControllerConfig>(R"({
      "listen_address": "0.0.0.0:7070", "data_dir": "/var/lib/kvbench",
      "token_sha256": ["s3cret"]})");
  CHECK(Fields(controller::ValidateControllerConfig(config)) ==
        "token_sha256[0]|tls.ca_cert_path|tls.cert_path|tls.key_path|");
  config.set_insecure(true);
  config.clear_token_sha256();
  CHECK(controller::ValidateControllerConfig(config).empty());
  controller::ApplyControllerConfigDefaults(&config);
  // The README's "kv-controller" defaults: heartbeat_timeout_s (30), max_scenario_attempts (3).
  CHECK(config.heartbeat_timeout_s() == 30);
  CHECK(config.max_scenario_attempts() == 3);
  CHECK(config.assignment_timeout_s() == 120);
  CHECK(config.event_silence_timeout_s() == 600);
}

TEST_CASE("Controller config ranges") {
  auto config = Parse<v1::ControllerConfig>(R"({
      "insecure": true, "data_dir": "/d", "heartbeat_timeout_s": 7200,
      "max_scenario_attempts": 101, "assignment_timeout_s": -1})");
  CHECK(Fields(controller::ValidateControllerConfig(config)) ==
        "listen_address|heartbeat_timeout_s|assignment_timeout_s|max_scenario_attempts|");
}

TEST_CASE("The event silence timeout is at least twice a running scenario's keepalive") {
  auto config = Parse<v1::ControllerConfig>(R"({
      "listen_address": "127.0.0.1:7070", "insecure": true, "data_dir": "/d",
      "event_silence_timeout_s": 30})");
  const FieldErrors errors = controller::ValidateControllerConfig(config);
  REQUIRE(Fields(errors) == "event_silence_timeout_s|");
  CHECK_THAT(std::string(errors.ToStatus("config").message()), Catch::Contains("30 is too short") &&
                                                                   Catch::Contains("every 30s") &&
                                                                   Catch::Contains("at least 60"));
  for (double bad : {-1.0, 86401.0}) {
    config.set_event_silence_timeout_s(bad);
    CHECK(Fields(controller::ValidateControllerConfig(config)) == "event_silence_timeout_s|");
  }
  config.set_event_silence_timeout_s(60);
  CHECK(controller::ValidateControllerConfig(config).empty());
}

TEST_CASE("A PostgreSQL store needs its connection string file, by absolute path") {
  auto config = Parse<v1::ControllerConfig>(R"({
      "listen_address": "127.0.0.1:7070", "insecure": true, "data_dir": "/var/lib/kvbench",
      "store": {"postgresql": {}}})");
  CHECK(Fields(controller::ValidateControllerConfig(config)) == "store.postgresql.dsn_file|");
  config.mutable_store()->mutable_postgresql()->set_dsn_file("pg.dsn");
  CHECK(Fields(controller::ValidateControllerConfig(config)) == "store.postgresql.dsn_file|");
  config.mutable_store()->mutable_postgresql()->set_dsn_file("/etc/kvbench/pg.dsn");
  CHECK(controller::ValidateControllerConfig(config).empty());
  config.mutable_store()->mutable_postgresql()->set_lease_s(-1);
  config.mutable_store()->mutable_postgresql()->set_advertise_address("node-a");
  CHECK(Fields(controller::ValidateControllerConfig(config)) ==
        "store.postgresql.lease_s|store.postgresql.advertise_address|");
  config.mutable_store()->mutable_postgresql()->set_lease_s(10);
  config.mutable_store()->mutable_postgresql()->set_advertise_address("node-a:7070");
  CHECK(controller::ValidateControllerConfig(config).empty());
  // SQLite, named or by default, needs nothing more than data_dir.
  config.mutable_store()->mutable_sqlite();
  CHECK(controller::ValidateControllerConfig(config).empty());
}

}  // namespace
}  // namespace kvbench
