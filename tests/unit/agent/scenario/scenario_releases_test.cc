#include "agent/scenario/scenario_releases.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace kvbench::agent {
namespace {

namespace fs = std::filesystem;

std::string WriteLog(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

// vLLM's factory logs the class it created
// (vllm/distributed/kv_transfer/kv_connector/factory.py).
TEST_CASE("The KV connector each replica loaded is read from its log") {
  const fs::path dir = fs::temp_directory_path() / absl::StrCat("kv-connector-", ::getpid());
  fs::create_directories(dir);
  const std::string logged = WriteLog(
      dir, "replica-0.log",
      "INFO 12-06 09:00:00 [factory.py:64] Creating v1 connector with name: LMCacheMPConnector "
      "and engine_id: 3f2a\nINFO ready\n");
  const std::string silent = WriteLog(dir, "replica-1.log", "INFO nothing about connectors\n");
  const v1::KvConnectorLoad registry =
      ReadKvConnectorLoad({logged, silent, (dir / "missing.log").string()}, "");
  CHECK(registry.class_name() == "LMCacheMPConnector");
  CHECK(registry.replicas_logged() == 1);
  CHECK(registry.module_path().empty());
  CHECK(registry.loaded_from() == "vllm_registry");
  const v1::KvConnectorLoad module =
      ReadKvConnectorLoad({logged, logged}, "lmcache.integration.vllm.lmcache_mp_connector");
  CHECK(module.replicas_logged() == 2);
  CHECK(module.loaded_from() == "module_path");
  CHECK(ReadKvConnectorLoad({silent}, "").class_name().empty());
  fs::remove_all(dir);
}

TEST_CASE("Without a release cache the versions say what was not probed") {
  v1::Profile engine;
  engine.set_name("sim-vllm");
  engine.set_role(v1::ENGINE);
  engine.set_simulated(true);
  ScenarioPrograms programs;
  programs.engine = &engine;
  programs.engine_program = "/bin/kvsim-vllm";
  v1::JobSpec job;
  job.set_model("meta-llama/Llama-3.1-8B-Instruct");
  absl::StatusOr<ScenarioReleases> releases = ScenarioReleases::Check(nullptr, programs, job);
  REQUIRE(releases.ok());
  CHECK(releases->cache_server() == nullptr);
  const std::vector<v1::ComponentVersion> versions = releases->Versions();
  REQUIRE(versions.size() == 3);
  CHECK(versions[0].component() == "vllm");
  CHECK(versions[0].version() == "unknown");
  CHECK(versions[1].component() == "kvbench");
  CHECK(versions[2].component() == "model_config");
  CHECK(versions[2].version() == "LlamaForCausalLM");
  CHECK(versions[2].simulated());
}

}  // namespace
}  // namespace kvbench::agent
