#include "agent/config/agent_config_validator.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/json/proto_json.h"
#include "controller/config/controller_config_validator.h"
#include "tests/support/field_errors_helpers.h"
#include "tests/support/temp_dir.h"

namespace kvbench {
namespace {

using testing::Fields;
using testing::Parse;

TEST_CASE("A local agent config is valid and gets its defaults") {
  auto config = Parse<v1::AgentConfig>(R"({
      "controller_address": "127.0.0.1:7070", "insecure": true,
      "work_dir": "/tmp/kv-agent", "profiles_dir": "/opt/kvbench/profiles",
      "metrics_listen": "127.0.0.1:0"})");
  CHECK(agent::ValidateAgentConfig(config).empty());
  agent::ApplyAgentConfigDefaults("node-7", &config);
  CHECK(config.agent_id() == "node-7");
  // The README's documented defaults ("kv-agent": heartbeat_interval_s (5), child_stop_grace_s
  // (30), scenario_retention_days (30)), written out: a changed constant must fail here while the
  // README says otherwise.
  CHECK(config.heartbeat_interval_s() == 5);
  CHECK(config.child_stop_grace_s() == 30);
  CHECK(config.scenario_retention_days() == 30);
  // 0 is kept as given: keep scenario folders forever.
  config.set_scenario_retention_days(0);
  agent::ApplyAgentConfigDefaults("node-7", &config);
  CHECK(config.scenario_retention_days() == 0);
}

TEST_CASE("Agent config problems are all reported, each naming its field") {
  auto config = Parse<v1::AgentConfig>(R"({
      "controller_address": "controller", "work_dir": "relative/dir",
      "nvme_cache_dir": "nvme", "dataset_mirror": "ftp-mirror", "metrics_listen": "nope",
      "heartbeat_interval_s": -1, "scenario_retention_days": -2,
      "gpus": [{"index": 0, "vendor": "NVIDIA", "memory_bytes": 1},
               {"index": 0, "vendor": "AMD", "memory_bytes": 0}]})");
  CHECK(Fields(agent::ValidateAgentConfig(config)) ==
        "controller_address|tls|work_dir|profiles_dir|nvme_cache_dir|dataset_mirror|"
        "metrics_listen|heartbeat_interval_s|scenario_retention_days|gpus[1].index|gpus[1].vendor|"
        "gpus[1].memory_bytes|");
}

TEST_CASE("The agent's folders may not be / or system folders, nor a model root /") {
  // work_dir "/" would make the agent kill what the system's /run/*.pid name at start.
  for (const char* folder :
       {"/", "/etc", "/var/", "/tmp", "/proc/1", "/usr", "/dev/shm", "/dev/sda"}) {
    INFO(folder);
    const std::string json =
        absl::StrCat(R"({"work_dir": ")", folder, R"(", "profiles_dir": "/p", "nvme_cache_dir": ")",
                     folder, R"(", "model_roots": ["/"]})");
    auto config = Parse<v1::AgentConfig>(json.c_str());
    const FieldErrors errors = agent::ValidateAgentConfig(config);
    CHECK(Fields(errors) == "work_dir|nvme_cache_dir|model_roots[0]|");
    CHECK_THAT(errors.errors()[0].message, Catch::Contains("is a system folder"));
  }
  auto own = Parse<v1::AgentConfig>(
      R"({"work_dir": "/var/lib/kvbench/agent", "profiles_dir": "/p", "nvme_cache_dir": "/dev/shm/kv",
          "model_roots": ["/models"]})");
  CHECK(agent::ValidateAgentConfig(own).empty());
}

TEST_CASE("An agent folder that is a symlink to a system folder is refused, naming both") {
  testing::TempDir dir;
  REQUIRE(::symlink("/tmp", dir.File("tmp-link").c_str()) == 0);
  REQUIRE(::symlink("/", dir.File("root-link").c_str()) == 0);
  REQUIRE(::mkdir(dir.File("own").c_str(), 0700) == 0);
  REQUIRE(::symlink(dir.File("own").c_str(), dir.File("own-link").c_str()) == 0);
  const std::string json = absl::StrCat(R"({"work_dir": ")", dir.File("tmp-link"),
                                        R"(", "profiles_dir": "/p", "nvme_cache_dir": ")",
                                        dir.File("root-link/var/tmp"), R"("})");
  const FieldErrors errors = agent::ValidateAgentConfig(Parse<v1::AgentConfig>(json.c_str()));
  REQUIRE(Fields(errors) == "work_dir|nvme_cache_dir|");
  CHECK_THAT(
      errors.errors()[0].message,
      Catch::Contains("\"" + dir.File("tmp-link") + "\" resolves to \"/tmp\", a system folder"));
  CHECK_THAT(errors.errors()[1].message, Catch::Contains("resolves to \"/var/tmp\""));
  // A link to a folder of its own, and a path not made yet under one, are fine.
  const std::string own = absl::StrCat(R"({"work_dir": ")", dir.File("own-link"),
                                       R"(", "profiles_dir": "/p", "nvme_cache_dir": ")",
                                       dir.File("own-link/not/yet"), R"("})");
  CHECK(agent::ValidateAgentConfig(Parse<v1::AgentConfig>(own.c_str())).empty());
}

TEST_CASE("An agent that talks to a controller needs mTLS unless explicitly insecure") {
  auto config = Parse<v1::AgentConfig>(R"({
      "controller_address": "ctl:7070", "work_dir": "/w", "profiles_dir": "/p",
      "tls": {"ca_cert_path": "/etc/kv/ca.pem"}})");
  CHECK(Fields(agent::ValidateAgentConfig(config)) == "tls.cert_path|tls.key_path|");
  config.set_insecure(true);
  CHECK(agent::ValidateAgentConfig(config).empty());
}

TEST_CASE("LoadAgentConfig reports unknown fields and invalid values together") {
  testing::TempDir dir;
  std::string path =
      dir.WriteFile("agent.json", R"({"work_dir": "w", "profile_dir": "/p", "gpus": [{}]})");
  absl::StatusOr<v1::AgentConfig> config = agent::LoadAgentConfig(path, "h");
  REQUIRE_FALSE(config.ok());
  std::string message(config.status().message());
  CHECK(message.find(path + ": 4 problems") == 0);
  CHECK(message.find("profile_dir: unknown field") != std::string::npos);
  CHECK(message.find("profiles_dir: is required") != std::string::npos);
  CHECK(message.find("gpus[0].vendor: is required") != std::string::npos);
}

TEST_CASE("Relative paths of a daemon config are relative to the config file's folder") {
  testing::TempDir dir;
  std::string path = dir.WriteFile("etc/agent.json", R"({
      "work_dir": "work", "profiles_dir": "../profiles", "dataset_mirror": "data/mirror",
      "dataset_cache_dir": "/abs/cache", "insecure": true,
      "controller_address": "ctl:7070"})");
  absl::StatusOr<v1::AgentConfig> agent_config = agent::LoadAgentConfig(path, "h");
  REQUIRE(agent_config.ok());
  CHECK(agent_config->work_dir() == dir.path() + "/etc/work");
  CHECK(agent_config->profiles_dir() == dir.path() + "/profiles");
  CHECK(agent_config->dataset_mirror() == dir.path() + "/etc/data/mirror");
  CHECK(agent_config->dataset_cache_dir() == "/abs/cache");
  CHECK_FALSE(agent_config->has_tls());  // nothing invented where nothing was given

  // A URL mirror is not a path.
  path = dir.WriteFile("etc/agent2.json", R"({"work_dir": "/w", "profiles_dir": "/p",
      "dataset_mirror": "https://mirror.example/kvbench"})");
  agent_config = agent::LoadAgentConfig(path, "h");
  REQUIRE(agent_config.ok());
  CHECK(agent_config->dataset_mirror() == "https://mirror.example/kvbench");

  path = dir.WriteFile("etc/controller.json", R"({"listen_address": "127.0.0.1:0",
      "data_dir": "state", "insecure": true, "tls": {"ca_cert_path": "pki/ca.pem"}})");
  absl::StatusOr<v1::ControllerConfig> controller_config = controller::LoadControllerConfig(path);
  REQUIRE(controller_config.ok());
  CHECK(controller_config->data_dir() == dir.path() + "/etc/state");
  CHECK(controller_config->tls().ca_cert_path() == dir.path() + "/etc/pki/ca.pem");
}

}  // namespace
}  // namespace kvbench
