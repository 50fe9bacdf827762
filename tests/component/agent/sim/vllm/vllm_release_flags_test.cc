// Pure parts of kvsim-vllm's release imitation: the top-level --version probe, the
// --sim-* release flags, the hybrid SSM start-up failure and the KV connector factory's choice.

#include <catch2/catch.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "agent/sim/engine/model_catalog.h"
#include "agent/sim/vllm/kv_connector_factory.h"
#include "agent/sim/vllm/vllm_flags.h"

namespace kvbench::sim {
namespace {

constexpr char kBamba[] = "ibm-ai-platform/Bamba-9B-v2";
constexpr char kPromoteError[] = "Failed to promote local KV cache specs to one unified type.";

absl::StatusOr<VllmFlagsResult> ParseReleaseFlags(std::vector<const char*> args) {
  args.insert(args.begin(), "kvsim-vllm");
  return ParseVllmServeFlags(static_cast<int>(args.size()), args.data());
}

absl::StatusOr<std::optional<std::string>> VersionProbe(std::vector<const char*> args) {
  args.insert(args.begin(), "kvsim-vllm");
  return TopLevelVersionRequest(static_cast<int>(args.size()), args.data());
}

TEST_CASE("kvsim-vllm --version at the top level names the release and tolerates --sim flags") {
  struct Row {
    std::vector<const char*> args;
    std::optional<std::string> version;  // nullopt: not a version request
  };
  const Row rows[] = {
      {{"--version"}, "0.33.0"},
      {{"-v"}, "0.33.0"},
      {{"--sim-vllm-version=0.12.0", "--version"}, "0.12.0"},
      {{"--sim-vllm-version", "0.20.1", "--version"}, "0.20.1"},
      // A profile's other --sim-* arguments, in either form, are ignored.
      {{"--sim-load-seconds=0", "--sim-vllm-version=0.11.1", "--version"}, "0.11.1"},
      {{"--sim-time-scale", "0.01", "--sim-omit-histograms", "--version"}, "0.33.0"},
      {{"--version", "--sim-vllm-version=0.12.0"}, "0.33.0"},  // argparse acts on --version first
      // Not a version request: no flag, a subcommand first, or another flag before it.
      {{}, std::nullopt},
      {{"serve", "m"}, std::nullopt},
      {{"serve", "m", "--version"}, std::nullopt},
      {{"--sim-vllm-version=0.12.0", "serve", "m"}, std::nullopt},
      {{"--enable-log-requests", "--version"}, std::nullopt},
  };
  for (const Row& row : rows) {
    std::string shown;
    for (const char* arg : row.args) shown += std::string(arg) + " ";
    INFO(shown);
    auto version = VersionProbe(row.args);
    REQUIRE(version.ok());
    CHECK(*version == row.version);
  }
  CHECK_FALSE(VersionProbe({"--sim-vllm-version", "--version"}).ok());  // no value
  CHECK_FALSE(VersionProbe({"--sim-vllm-version=", "--version"}).ok());
}

TEST_CASE("kvsim-vllm release flags: defaults as before, each value parsed") {
  auto parsed = ParseReleaseFlags({"serve", "m"});
  REQUIRE(parsed.ok());
  CHECK(parsed->options.sim_vllm_version == "0.33.0");
  CHECK(parsed->options.sim_connector_lookup == ConnectorLookup::kModulePathFirst);
  CHECK(parsed->options.sim_external_counting == ExternalQueryCounting::kPromptMinusLocal);
  CHECK(MakeEngineConfig(parsed->options).external_query_counting ==
        ExternalQueryCounting::kPromptMinusLocal);

  parsed = ParseReleaseFlags({"serve", "m", "--sim-vllm-version=0.12.0", "--sim-connector-lookup",
                              "registry-first", "--sim-external-counting=whole-prompt"});
  REQUIRE(parsed.ok());
  CHECK(parsed->options.sim_vllm_version == "0.12.0");
  CHECK(parsed->options.sim_connector_lookup == ConnectorLookup::kRegistryFirst);
  CHECK(parsed->options.sim_external_counting == ExternalQueryCounting::kWholePrompt);
  CHECK(MakeEngineConfig(parsed->options).external_query_counting ==
        ExternalQueryCounting::kWholePrompt);

  CHECK_FALSE(ParseReleaseFlags({"serve", "m", "--sim-connector-lookup", "alphabetical"}).ok());
  CHECK_FALSE(ParseReleaseFlags({"serve", "m", "--sim-external-counting", "half"}).ok());
  CHECK_FALSE(ParseReleaseFlags({"serve", "m", "--sim-vllm-version="}).ok());
}

TEST_CASE("A hybrid SSM model fails start-up exactly when the hybrid KV cache manager is off") {
  struct Row {
    const char* model;
    std::vector<const char*> flags;
    bool hybrid_kv_cache_manager;
    bool fails;
  };
  const char* connector = "{\"kv_connector\":\"LMCacheMPConnector\",\"kv_role\":\"kv_both\"}";
  const Row rows[] = {
      {kBamba, {}, true, false},
      {kBamba, {"--no-disable-hybrid-kv-cache-manager"}, true, false},
      {kBamba, {"--disable-hybrid-kv-cache-manager"}, false, true},
      {kBamba, {"--kv-transfer-config", connector}, false, true},  // the connector turns it off
      {"openai/gpt-oss-20b", {"--disable-hybrid-kv-cache-manager"}, false, false},
      {"meta-llama/Llama-3.1-8B-Instruct", {"--disable-hybrid-kv-cache-manager"}, false, false},
  };
  for (const Row& row : rows) {
    std::vector<const char*> args = {"serve", row.model};
    args.insert(args.end(), row.flags.begin(), row.flags.end());
    INFO(row.model << " " << (row.flags.empty() ? "" : row.flags.front()));
    auto parsed = ParseReleaseFlags(args);
    REQUIRE(parsed.ok());
    const EngineConfig config = MakeEngineConfig(parsed->options);
    CHECK(config.hybrid_kv_cache_manager == row.hybrid_kv_cache_manager);
    const absl::Status status = HybridSsmStartupError(parsed->options, config.model);
    CHECK(status.ok() == !row.fails);
    if (row.fails) CHECK(status.message() == kPromoteError);
  }
}

TEST_CASE("Bamba's blocks from memory count its attention layers only, whatever the manager") {
  auto with = ParseReleaseFlags({"serve", kBamba});
  auto without = ParseReleaseFlags({"serve", kBamba, "--disable-hybrid-kv-cache-manager"});
  REQUIRE(with.ok());
  REQUIRE(without.ok());
  // (141e9 x 0.92 - 19.56e9) / (16 x 12,288 B) = 560,302.7
  CHECK(MakeEngineConfig(with->options).num_gpu_blocks == 560302);
  CHECK(MakeEngineConfig(without->options).num_gpu_blocks == 560302);
}

TEST_CASE("The KV connector factory's choice follows its lookup order") {
  struct Row {
    const char* name;
    const char* json;
    ConnectorLookup lookup;
    bool ok;
    const char* module_path;
    const char* engine_id;
  };
  constexpr ConnectorLookup kModule = ConnectorLookup::kModulePathFirst;
  constexpr ConnectorLookup kRegistry = ConnectorLookup::kRegistryFirst;
  const char* plain = R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both"})";
  const char* lmcache_module =
      R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",)"
      R"("kv_connector_module_path":"lmcache.integration.vllm.lmcache_mp_connector"})";
  const char* empty_module =
      R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both","kv_connector_module_path":""})";
  const char* null_module =
      R"({"kv_connector":"LMCacheMPConnector","kv_connector_module_path":null,"engine_id":"e7"})";
  const Row rows[] = {
      {"no module path", plain, kModule, true, "", ""},
      {"no module path, registry", plain, kRegistry, true, "", ""},
      {"module path first", lmcache_module, kModule, true,
       "lmcache.integration.vllm.lmcache_mp_connector", ""},
      {"registered name wins", lmcache_module, kRegistry, true, "", ""},
      {"empty module path refused", empty_module, kModule, false, "", ""},
      {"empty module path unread", empty_module, kRegistry, true, "", ""},
      {"null module path, engine id", null_module, kModule, true, "", "e7"},
      {"module path not a string", R"({"kv_connector":"X","kv_connector_module_path":3})",
       kRegistry, false, "", ""},
      {"engine id not a string", R"({"kv_connector":"X","engine_id":[1]})", kModule, false, "", ""},
      {"no connector", R"({"kv_role":"kv_both"})", kModule, false, "", ""},
      {"not an object", "[1]", kModule, false, "", ""},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    auto choice = ChooseKvConnector(row.json, row.lookup);
    REQUIRE(choice.ok() == row.ok);
    if (!row.ok) continue;
    CHECK(choice->module_path == row.module_path);
    CHECK(choice->engine_id == row.engine_id);
  }
  auto lmcache = ChooseKvConnector(lmcache_module, kModule);
  REQUIRE(lmcache.ok());
  CHECK(lmcache->class_name == "LMCacheMPConnector");  // the class name is kv_connector either way
  auto refused = ChooseKvConnector(empty_module, kModule);
  CHECK(refused.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(refused.status().message() == "kv_connector_module_path cannot be an empty string.");
  CHECK(ChooseKvConnector(R"({"kv_connector":"X","kv_connector_module_path":3})", kRegistry)
            .status()
            .code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("The factory's creation line and the engine id vLLM draws") {
  CHECK(ConnectorCreationMessage("LMCacheMPConnector", "e7") ==
        "Creating v1 connector with name: LMCacheMPConnector and engine_id: e7");
  CHECK(Uuid4(0, 0) == "00000000-0000-4000-8000-000000000000");
  CHECK(Uuid4(~uint64_t{0}, ~uint64_t{0}) == "ffffffff-ffff-4fff-bfff-ffffffffffff");
  CHECK(Uuid4(0x0123456789abcdefULL, 0xfedcba9876543210ULL) ==
        "01234567-89ab-4def-bedc-ba9876543210");
  const std::regex uuid4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  const std::string drawn = RandomUuid4();
  CHECK(std::regex_match(drawn, uuid4));
  CHECK(RandomUuid4() != drawn);
}

}  // namespace
}  // namespace kvbench::sim
