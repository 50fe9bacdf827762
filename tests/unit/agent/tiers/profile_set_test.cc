#include "agent/tiers/profile_set.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "agent/tiers/profile_validator.h"
#include "common/json/proto_json.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/agent/tiers/tiers_test_fixtures.h"

namespace kvbench::agent::tiers {
namespace {

using testing::Shipped;
using testing::ShippedProfiles;

constexpr char kGoodEngine[] = R"({
  "name": "NAME",
  "role": "ENGINE",
  "engine": "VLLM",
  "vendor": "NVIDIA",
  "command": ["vllm", "serve"],
  "extra_args": ["--enable-prompt-tokens-details"],
  "visible_devices_env": "CUDA_VISIBLE_DEVICES"
})";

// kGoodEngine named `name`, with `from` replaced by `to`.
std::string EngineJson(const std::string& name, const std::string& from = "",
                       const std::string& to = "") {
  std::string json = kGoodEngine;
  json.replace(json.find("NAME"), 4, name);
  if (!from.empty()) {
    size_t at = json.find(from);
    REQUIRE(at != std::string::npos);
    json.replace(at, from.size(), to);
  }
  return json;
}

// LoadDir on a directory holding one file `name`.json, expecting INVALID_ARGUMENT.
std::string RejectionOf(const std::string& name, const std::string& json) {
  kvbench::testing::TempDir dir;
  const std::string path = dir.WriteFile(name + ".json", json);
  absl::StatusOr<ProfileSet> set = ProfileSet::LoadDir(dir.path());
  REQUIRE_FALSE(set.ok());
  CHECK(set.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(set.status().message()), Catch::Contains(path));
  return std::string(set.status().message());
}

TEST_CASE("The shipped profiles load, one per name ChooseProfiles picks") {
  CHECK(ShippedProfiles().names() == std::vector<std::string>{"lmcache-cpu", "lmcache-nvme",
                                                              "sim-lmcache", "sim-vllm", "vllm-amd",
                                                              "vllm-nvidia"});
  const v1::Profile& nvidia = Shipped(kVllmNvidiaProfile);
  CHECK(nvidia.role() == v1::ENGINE);
  CHECK(nvidia.engine() == v1::VLLM);
  CHECK(nvidia.vendor() == v1::NVIDIA);
  CHECK(nvidia.visible_devices_env() == "CUDA_VISIBLE_DEVICES");
  const v1::Profile& amd = Shipped(kVllmAmdProfile);
  CHECK(amd.vendor() == v1::AMD);
  CHECK(amd.visible_devices_env() == "HIP_VISIBLE_DEVICES");
  CHECK(std::vector<std::string>(amd.command().begin(), amd.command().end()) ==
        std::vector<std::string>{"vllm", "serve"});

  const v1::Profile& sim = Shipped(kSimVllmProfile);
  CHECK(sim.simulated());
  CHECK(sim.engine() == v1::SIM);
  CHECK(sim.visible_devices_env().empty());
  CHECK(std::vector<std::string>(sim.command().begin(), sim.command().end()) ==
        std::vector<std::string>{"kvsim-vllm", "serve"});
  const v1::Profile& sim_cache = Shipped(kSimLmcacheProfile);
  CHECK(sim_cache.simulated());
  CHECK(sim_cache.role() == v1::CACHE_SERVER);
  CHECK(std::vector<std::string>(sim_cache.command().begin(), sim_cache.command().end()) ==
        std::vector<std::string>{"kvsim-lmcache", "server"});

  const v1::Profile& cpu = Shipped(kLmcacheCpuProfile);
  CHECK(cpu.tiers_size() == 1);
  CHECK(cpu.tiers(0) == v1::CPU_RAM);
  CHECK_FALSE(cpu.simulated());
  const v1::Profile& nvme = Shipped(kLmcacheNvmeProfile);
  CHECK(nvme.tiers_size() == 1);
  CHECK(nvme.tiers(0) == v1::NVME);
  CHECK(std::vector<std::string>(nvme.command().begin(), nvme.command().end()) ==
        std::vector<std::string>{"lmcache", "server"});
}

TEST_CASE("Ready timeouts: the profile's, else the role's default") {
  CHECK(ReadyTimeout(Shipped(kVllmNvidiaProfile)) == absl::Seconds(600));
  CHECK(ReadyTimeout(Shipped(kLmcacheCpuProfile)) == absl::Seconds(120));
  v1::Profile profile;
  profile.set_role(v1::ENGINE);
  // deploy/profiles/README.md: "default 600 s (engines), 120 s (cache servers)".
  CHECK(ReadyTimeout(profile) == absl::Seconds(600));
  profile.set_role(v1::CACHE_SERVER);
  CHECK(ReadyTimeout(profile) == absl::Seconds(120));
  profile.set_ready_timeout_s(2.5);
  CHECK(ReadyTimeout(profile) == absl::Milliseconds(2500));
}

TEST_CASE("A broken profile is rejected naming its file and field") {
  SECTION("unknown field") {
    std::string message =
        RejectionOf("vllm-x", EngineJson("vllm-x", "\"role\"", "\"colour\": \"red\", \"role\""));
    CHECK_THAT(message, Catch::Contains("colour: unknown field"));
  }
  SECTION("missing command") {
    std::string message =
        RejectionOf("vllm-x", EngineJson("vllm-x", "\"command\": [\"vllm\", \"serve\"],", ""));
    CHECK_THAT(message, Catch::Contains("command: is required"));
  }
  SECTION("name is not the file's stem") {
    std::string message = RejectionOf("vllm-x", EngineJson("vllm-y"));
    CHECK_THAT(message, Catch::Contains("name: \"vllm-y\": must be the file's name without "
                                        ".json, \"vllm-x\""));
  }
  SECTION("extra_args without --") {
    std::string message = RejectionOf(
        "vllm-x",
        EngineJson("vllm-x", "\"--enable-prompt-tokens-details\"", "\"--max-num-seqs\", \"64\""));
    CHECK_THAT(message, Catch::Contains("extra_args[1]: \"64\" must start with \"--\""));
    CHECK_THAT(message, !Catch::Contains("extra_args[0]"));
  }
  SECTION("VLLM without vendor and devices variable") {
    std::string message = RejectionOf("vllm-x", R"({"name": "vllm-x", "role": "ENGINE",
        "engine": "VLLM", "command": ["vllm", "serve"]})");
    CHECK_THAT(message, Catch::Contains("vendor: is required"));
    CHECK_THAT(message, Catch::Contains("visible_devices_env: is required"));
  }
  SECTION("role missing, bad enum value") {
    std::string message = RejectionOf(
        "vllm-x", EngineJson("vllm-x", "\"role\": \"ENGINE\",", "\"tiers\": [\"SSD\"],"));
    CHECK_THAT(message, Catch::Contains("role: is required"));
    CHECK_THAT(message, Catch::Contains("tiers[0]: \"SSD\" is not one of"));
  }
  SECTION("kv_connector_module_path not a module, or on a cache server") {
    std::string message = RejectionOf(
        "vllm-x", EngineJson("vllm-x", "\"role\"",
                             "\"kv_connector_module_path\": \"lmcache/mp.py\", \"role\""));
    CHECK_THAT(message, Catch::Contains("kv_connector_module_path: \"lmcache/mp.py\" is not a "
                                        "Python module path"));
    CHECK_THAT(
        RejectionOf("vllm-x", EngineJson("vllm-x", "\"role\"",
                                         "\"kv_connector_module_path\": \"a..b\", \"role\"")),
        Catch::Contains("is not a Python module path"));
    std::string cache = RejectionOf("lmc-x", R"({"name": "lmc-x", "role": "CACHE_SERVER",
        "tiers": ["CPU_RAM"], "command": ["lmcache", "server"],
        "kv_connector_module_path": "lmcache.integration.vllm.lmcache_mp_connector"})");
    CHECK_THAT(cache, Catch::Contains("kv_connector_module_path: is only for ENGINE profiles"));
  }
  SECTION("invalid JSON") {
    std::string message = RejectionOf("vllm-x", "{\"name\": ");
    CHECK_THAT(message, Catch::Contains("invalid JSON"));
  }
}

TEST_CASE("Every problem of every file is reported, and good files beside them do not hide them") {
  kvbench::testing::TempDir dir;
  const std::string good = dir.WriteFile("vllm-good.json", EngineJson("vllm-good"));
  const std::string first = dir.WriteFile("a.json", EngineJson("b"));
  const std::string second = dir.WriteFile(
      "c.json", R"({"name": "c", "role": "CACHE_SERVER", "tiers": ["GPU", "NVME", "NVME"],
                    "command": [""], "env": {"BAD-NAME": "1"}, "ready_timeout_s": 0})");
  dir.WriteFile("notes.txt", "not a profile");
  absl::StatusOr<ProfileSet> set = ProfileSet::LoadDir(dir.path());
  REQUIRE_FALSE(set.ok());
  const std::string message(set.status().message());
  INFO(message);
  CHECK_THAT(message, Catch::Contains("2 of 3 files invalid"));
  CHECK_THAT(message, !Catch::Contains(good));
  CHECK_THAT(message, Catch::Contains(first + ": 1 problem"));
  CHECK_THAT(message, Catch::Contains(second + ": 5 problems"));
  CHECK_THAT(message, Catch::Contains("tiers[0]: GPU has no cache server"));
  CHECK_THAT(message, Catch::Contains("tiers[2]: NVME is listed twice"));
  CHECK_THAT(message, Catch::Contains("command[0]: must not be empty"));
  CHECK_THAT(message, Catch::Contains("env.BAD-NAME: is not a valid variable name"));
  CHECK_THAT(message, Catch::Contains("ready_timeout_s: 0 must be in (0, 86400]"));
}

TEST_CASE("A missing or empty profiles directory is an error") {
  CHECK(ProfileSet::LoadDir("/nonexistent/kvbench/profiles").status().code() ==
        absl::StatusCode::kNotFound);
  kvbench::testing::TempDir dir;
  absl::StatusOr<ProfileSet> empty = ProfileSet::LoadDir(dir.path());
  CHECK(empty.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(empty.status().message()), Catch::Contains("no profiles (*.json)"));
}

TEST_CASE("Find names the missing profile and the ones there are") {
  absl::StatusOr<const v1::Profile*> missing = ShippedProfiles().Find("vllm-intel");
  REQUIRE(missing.status().code() == absl::StatusCode::kNotFound);
  const std::string message(missing.status().message());
  CHECK_THAT(message, Catch::Contains("\"vllm-intel\""));
  CHECK_THAT(message, Catch::Contains(KV_PROFILES_DIR));
  CHECK_THAT(message, Catch::Contains("sim-lmcache, sim-vllm"));
}

TEST_CASE("FromProfiles validates each profile and rejects duplicate names") {
  v1::Profile profile = *ShippedProfiles().Find(kSimVllmProfile).value();
  REQUIRE(ProfileSet::FromProfiles({profile}).ok());
  absl::StatusOr<ProfileSet> twice = ProfileSet::FromProfiles({profile, profile});
  REQUIRE_FALSE(twice.ok());
  CHECK_THAT(std::string(twice.status().message()),
             Catch::Contains("profile[1] \"sim-vllm\": name: is used by an earlier profile"));
  v1::Profile broken = profile;
  broken.clear_command();
  absl::StatusOr<ProfileSet> invalid = ProfileSet::FromProfiles({broken});
  REQUIRE_FALSE(invalid.ok());
  CHECK_THAT(std::string(invalid.status().message()), Catch::Contains("command: is required"));
}

TEST_CASE("Engine profiles take no tiers, SIM engines need no vendor") {
  v1::Profile sim = *ShippedProfiles().Find(kSimVllmProfile).value();
  CHECK(ValidateProfile(sim, std::nullopt).empty());
  sim.add_tiers(v1::CPU_RAM);
  FieldErrors errors = ValidateProfile(sim, std::string("other"));
  REQUIRE(errors.size() == 2);
  CHECK(errors.errors()[0].field == "name");
  CHECK(errors.errors()[1].field == "tiers");
}

}  // namespace
}  // namespace kvbench::agent::tiers
