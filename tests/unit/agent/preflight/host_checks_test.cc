// ports, model_roots and datasets (agent/preflight/host_checks.h): binds faked, folders real.
#include "agent/preflight/host_checks.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/fakes/fake_preflight_probes.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/agent/preflight/preflight_test_profiles.h"

namespace kvbench::testing {
namespace {

using agent::preflight::CheckDatasets;
using agent::preflight::CheckModelRoots;
using agent::preflight::CheckPorts;
using Catch::Contains;

TEST_CASE("ports: the children's loopback addresses bind and the listen address is free") {
  FakePreflightProbes probes;
  const v1::PreflightCheck ports = CheckPorts("127.0.0.1:9464", probes);
  CHECK(ports.status() == v1::PREFLIGHT_OK);
  CHECK_THAT(ports.detail(), Contains("127.0.0.2") && Contains("127.0.0.1:9464 is free"));
}

TEST_CASE("ports: a taken listen port fails, naming who holds it") {
  FakePreflightProbes probes;
  probes.TakePort("127.0.0.1", 9464);
  const v1::PreflightCheck ports = CheckPorts("127.0.0.1:9464", probes);
  CHECK(ports.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(ports.detail(), Contains("9464") && Contains("pid 4242 (kv-agent)"));
  CHECK_THAT(ports.remedy(), Contains("metrics_listen"));
  CHECK(ports.tiers().empty());
  CHECK(ports.profiles().empty());
  // Port 0 picks a free one: nothing to check.
  CHECK(CheckPorts("127.0.0.1:0", probes).status() == v1::PREFLIGHT_OK);
}

TEST_CASE("ports: a loopback address that cannot bind fails every tier") {
  FakePreflightProbes probes;
  probes.TakePort("127.0.0.2", 0);
  const v1::PreflightCheck ports = CheckPorts("", probes);
  CHECK(ports.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(ports.remedy(), Contains("127.0.0.0/8"));
}

TEST_CASE("model_roots: a job's model outside the roots fails, naming model and roots") {
  TempDir dir;
  std::filesystem::create_directories(dir.File("models/llama"));
  std::filesystem::create_directories(dir.File("elsewhere/llama"));
  v1::JobSpec spec;
  spec.set_model(dir.File("elsewhere/llama"));
  const v1::PreflightCheck outside = CheckModelRoots({dir.File("models")}, spec);
  CHECK(outside.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(outside.detail(),
             Contains(dir.File("elsewhere/llama")) && Contains(dir.File("models")));
  CHECK_THAT(outside.remedy(), Contains("--model-root"));
  // Under a root but not a checkpoint.
  spec.set_model(dir.File("models/llama"));
  const v1::PreflightCheck empty = CheckModelRoots({dir.File("models")}, spec);
  CHECK(empty.status() == v1::PREFLIGHT_FAIL);
  CHECK_THAT(empty.detail(), Contains("config.json"));
  dir.WriteFile("models/llama/config.json", "{}");
  CHECK(CheckModelRoots({dir.File("models")}, spec).status() == v1::PREFLIGHT_OK);
  // A model id is the engine's to resolve.
  spec.set_model("meta-llama/Llama-3.1-8B-Instruct");
  CHECK(CheckModelRoots({}, spec).status() == v1::PREFLIGHT_OK);
}

TEST_CASE("model_roots: the checkpoints under each root, and a missing root warns") {
  TempDir dir;
  dir.WriteFile("models/meta-llama/Llama-3.1-8B/config.json", "{}");
  dir.WriteFile("models/qwen/config.json", "{}");
  v1::PreflightCheck roots = CheckModelRoots({dir.File("models")}, std::nullopt);
  CHECK(roots.status() == v1::PREFLIGHT_OK);
  CHECK_THAT(roots.detail(), Contains("(2 checkpoints with config.json)"));
  roots = CheckModelRoots({dir.File("models"), dir.File("gone")}, std::nullopt);
  CHECK(roots.status() == v1::PREFLIGHT_WARN);
  CHECK_THAT(roots.detail(), Contains("not a readable folder: " + dir.File("gone")));
  CHECK(CheckModelRoots({}, std::nullopt).status() == v1::PREFLIGHT_SKIP);
}

TEST_CASE("datasets: which known datasets resolve offline") {
  TempDir dir;
  v1::PreflightCheck datasets = CheckDatasets({dir.path()}, false, true, std::nullopt);
  CHECK(datasets.status() == v1::PREFLIGHT_WARN);
  CHECK_THAT(datasets.detail(), Contains("no known dataset resolves offline"));
  CHECK_THAT(datasets.remedy(), Contains("kvctl dataset pull"));
  dir.WriteFile("tau2_airline_gpt-4.1_results.json", "[]");
  datasets = CheckDatasets({dir.path()}, false, true, std::nullopt);
  CHECK(datasets.status() == v1::PREFLIGHT_OK);
  CHECK_THAT(datasets.detail(), Contains("offline: tau2-bench-v1"));
}

TEST_CASE("datasets: a job's dataset not here fails, unless the agent pulls registry datasets") {
  TempDir dir;
  v1::JobSpec spec;
  spec.mutable_dataset()->set_code("tau2-bench-v1");
  CHECK(CheckDatasets({dir.path()}, false, false, spec).status() == v1::PREFLIGHT_FAIL);
  const v1::PreflightCheck pulled = CheckDatasets({dir.path()}, false, true, spec);
  CHECK(pulled.status() == v1::PREFLIGHT_WARN);
  CHECK_THAT(pulled.detail(), Contains("pulled at scenario start"));
  // A user's file the registry does not know cannot be pulled.
  spec.mutable_dataset()->set_code("openai-messages");
  spec.mutable_dataset()->set_path("mine/chats.jsonl");
  CHECK(CheckDatasets({dir.path()}, false, true, spec).status() == v1::PREFLIGHT_FAIL);
  dir.WriteFile("mine/chats.jsonl", "{}\n");
  CHECK(CheckDatasets({dir.path()}, false, true, spec).status() == v1::PREFLIGHT_OK);
}

}  // namespace
}  // namespace kvbench::testing
