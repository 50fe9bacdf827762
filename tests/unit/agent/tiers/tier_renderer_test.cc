#include "agent/tiers/tier_renderer.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/unit/agent/tiers/tiers_test_fixtures.h"

namespace kvbench::agent::tiers {
namespace {

using testing::EnvText;
using testing::Shipped;
using testing::TestJob;
using testing::TestScenario;
using testing::TestWiring;
using testing::Words;

// What every CPU_RAM/NVME replica of the fixtures' wiring gets: the one cache server.
constexpr char kKvTransfer[] =
    R"(--kv-transfer-config {"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",)"
    R"("kv_connector_extra_config":{"lmcache.mp.host":"tcp://127.0.0.1","lmcache.mp.port":5555,)"
    R"("lmcache.mp.mq_timeout":300}})";
constexpr char kL2Adapter[] =
    R"(--l2-adapter {"type":"fs","base_path":"/var/lib/kvbench/nvme/l2","max_capacity_gb":64,)"
    R"("eviction":{"eviction_policy":"LRU","trigger_watermark":0.8,"eviction_ratio":0.2}})";
constexpr char kOverrides[] =
    "--num-gpu-blocks-override 4096 --gpu-memory-utilization 0.9 --max-model-len 32768";
constexpr char kSimFlags[] = "--sim-time-scale 0.01 --sim-seed 7";

struct Rendered {
  std::optional<LaunchPlan> cache;
  std::vector<LaunchPlan> replicas;
};

// The whole scenario as the executor would render it from the shipped profiles.
Rendered Render(v1::Engine engine, v1::Vendor build, v1::Tier tier, int replicas) {
  const v1::JobSpec job = TestJob(engine, build, replicas);
  const v1::Scenario scenario = TestScenario(tier);
  const ScenarioWiring wiring = TestWiring(replicas);
  absl::StatusOr<ProfileChoice> choice = ChooseProfiles(job, tier);
  REQUIRE(choice.ok());
  Rendered out;
  if (choice->cache_server.has_value()) {
    out.cache = RenderCacheServer(Shipped(*choice->cache_server), job, scenario, wiring);
  }
  for (int i = 0; i < replicas; ++i) {
    out.replicas.push_back(RenderReplica(Shipped(choice->engine), job, scenario, wiring, i));
  }
  return out;
}

TEST_CASE("Golden: NVIDIA CPU_RAM, 2 replicas") {
  Rendered r = Render(v1::VLLM, v1::NVIDIA, v1::CPU_RAM, 2);
  REQUIRE(r.cache.has_value());
  CHECK(r.cache->name == "cache-server");
  CHECK(r.cache->argv ==
        Words("lmcache server --host 127.0.0.1 --port 5555 --http-host 127.0.0.1 --http-port 8080 "
              "--prometheus-port 9090 --l1-size-gb 8 --eviction-policy LRU --max-workers 2 "
              "--chunk-size=256 --metrics-sample-rate=0.01"));
  CHECK(EnvText(r.cache->env) == "LMCACHE_TRACK_USAGE=false");
  REQUIRE(r.replicas.size() == 2);
  CHECK(r.replicas[1].name == "replica-1");
  CHECK(r.replicas[1].argv ==
        Words(absl::StrCat("vllm serve meta-llama/Llama-3.1-8B-Instruct --host 127.0.0.3 "
                           "--port 8000 --tensor-parallel-size 2 --disable-hybrid-kv-cache-manager "
                           "--num-gpu-blocks-override 4096 "
                           "--gpu-memory-utilization 0.9 --max-model-len 32768 ",
                           kKvTransfer, " --enable-prompt-tokens-details")));
  CHECK(EnvText(r.replicas[1].env) ==
        "CUDA_VISIBLE_DEVICES=2,3;DO_NOT_TRACK=1;LMCACHE_TRACK_USAGE=false;PYTHONHASHSEED=0;"
        "VLLM_NO_USAGE_STATS=1");
}

TEST_CASE("Golden: simulated NVME, 1 replica") {
  Rendered r = Render(v1::SIM, v1::VENDOR_UNSPECIFIED, v1::NVME, 1);
  REQUIRE(r.cache.has_value());
  CHECK(r.cache->argv ==
        Words(absl::StrCat(
            "kvsim-lmcache server --host 127.0.0.1 --port 5555 --http-host "
            "127.0.0.1 --http-port 8080 --prometheus-port 9090 --l1-size-gb 8 "
            "--eviction-policy LRU --max-workers 1 ",
            kL2Adapter,
            " --sim-l2-bytes-scale 0.001 --sim-time-scale 0.01 --sim-seed 7 --chunk-size=256 "
            "--metrics-sample-rate=1.0")));
  CHECK(r.cache->env.empty());
  REQUIRE(r.replicas.size() == 1);
  CHECK(r.replicas[0].argv ==
        Words(absl::StrCat(
            "kvsim-vllm serve meta-llama/Llama-3.1-8B-Instruct --host 127.0.0.2 "
            "--port 8000 --tensor-parallel-size 2 --disable-hybrid-kv-cache-manager "
            "--num-gpu-blocks-override 4096 "
            "--gpu-memory-utilization 0.9 --max-model-len 32768 --sim-time-scale "
            "0.01 --sim-seed 7 ",
            kKvTransfer,
            " --enable-prompt-tokens-details --enable-log-requests --sim-load-seconds=0")));
  // No usage reports from a replica, simulated or not.
  CHECK(EnvText(r.replicas[0].env) ==
        "DO_NOT_TRACK=1;LMCACHE_TRACK_USAGE=false;VLLM_NO_USAGE_STATS=1");
}

TEST_CASE("Golden: AMD GPU, 1 replica: no connector, no cache server") {
  Rendered r = Render(v1::VLLM, v1::AMD, v1::GPU, 1);
  CHECK_FALSE(r.cache.has_value());
  REQUIRE(r.replicas.size() == 1);
  CHECK(r.replicas[0].argv ==
        Words("vllm serve meta-llama/Llama-3.1-8B-Instruct --host 127.0.0.2 --port 8000 "
              "--tensor-parallel-size 2 --disable-hybrid-kv-cache-manager "
              "--num-gpu-blocks-override 4096 --gpu-memory-utilization "
              "0.9 --max-model-len 32768 --enable-prompt-tokens-details"));
  CHECK(EnvText(r.replicas[0].env) ==
        "DO_NOT_TRACK=1;HIP_VISIBLE_DEVICES=0,1;LMCACHE_TRACK_USAGE=false;PYTHONHASHSEED=0;"
        "VLLM_NO_USAGE_STATS=1");
  CHECK(r.replicas[0].unset_env == std::vector<std::string>{"CUDA_VISIBLE_DEVICES"});
}

// The expected command lines of every tier x vendor x replica count, from the pieces above.
struct Expected {
  const char* cache_program;  // "" when the tier has no cache server
  const char* cache_env;
  const char* replica_program;
  const char* replica_sim_flags;   // after the overrides
  const char* replica_extra_args;  // the profile's
  const char* devices_env;         // "" for the simulator
  const char* replica_env;         // the profile's, beside the devices variable
};

Expected ExpectedFor(v1::Engine engine, v1::Vendor build) {
  if (engine == v1::SIM) {
    return {"kvsim-lmcache server",
            "",
            "kvsim-vllm serve",
            kSimFlags,
            "--enable-prompt-tokens-details --enable-log-requests --sim-load-seconds=0",
            "",
            ""};
  }
  return {"lmcache server",
          "LMCACHE_TRACK_USAGE=false",
          "vllm serve",
          "",
          "--enable-prompt-tokens-details",
          build == v1::AMD ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES",
          "PYTHONHASHSEED=0"};
}

std::string ExpectedCache(const Expected& e, v1::Engine engine, v1::Tier tier, int replicas) {
  std::vector<std::string> parts = {
      e.cache_program,
      absl::StrCat("--host 127.0.0.1 --port 5555 --http-host 127.0.0.1 --http-port 8080 "
                   "--prometheus-port 9090 --l1-size-gb 8 --eviction-policy LRU --max-workers ",
                   replicas)};
  if (tier == v1::NVME) parts.push_back(kL2Adapter);
  if (tier == v1::NVME && engine == v1::SIM) parts.push_back("--sim-l2-bytes-scale 0.001");
  if (engine == v1::SIM) parts.push_back(kSimFlags);
  parts.push_back(engine == v1::SIM ? "--chunk-size=256 --metrics-sample-rate=1.0"
                                    : "--chunk-size=256 --metrics-sample-rate=0.01");
  return absl::StrJoin(parts, " ");
}

std::string ExpectedReplica(const Expected& e, v1::Tier tier, int index) {
  std::vector<std::string> parts = {
      e.replica_program, testing::kModel,
      absl::StrCat("--host 127.0.0.", 2 + index,
                   " --port 8000 --tensor-parallel-size 2 --disable-hybrid-kv-cache-manager"),
      kOverrides};
  if (*e.replica_sim_flags != '\0') parts.push_back(e.replica_sim_flags);
  if (tier != v1::GPU) parts.push_back(kKvTransfer);
  parts.push_back(e.replica_extra_args);
  return absl::StrJoin(parts, " ");
}

std::string ExpectedReplicaEnv(const Expected& e, int index) {
  std::map<std::string, std::string> env;
  if (*e.devices_env != '\0') env[e.devices_env] = index == 0 ? "0,1" : "2,3";
  if (*e.replica_env != '\0') env["PYTHONHASHSEED"] = "0";
  env["DO_NOT_TRACK"] = "1";
  env["LMCACHE_TRACK_USAGE"] = "false";
  env["VLLM_NO_USAGE_STATS"] = "1";
  return EnvText(env);
}

TEST_CASE("Every tier x vendor x replica count renders the pinned argv and env") {
  struct Build {
    v1::Engine engine;
    v1::Vendor vendor;
  };
  for (Build build : {Build{v1::VLLM, v1::NVIDIA}, Build{v1::VLLM, v1::AMD},
                      Build{v1::SIM, v1::VENDOR_UNSPECIFIED}}) {
    for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) {
      for (int replicas : {1, 2}) {
        INFO(v1::Engine_Name(build.engine) << " " << v1::Vendor_Name(build.vendor) << " "
                                           << v1::Tier_Name(tier) << " x" << replicas);
        const Expected e = ExpectedFor(build.engine, build.vendor);
        Rendered r = Render(build.engine, build.vendor, tier, replicas);
        // GPU: no cache server at all; CPU_RAM/NVME: exactly one, the l2 adapter only for NVME.
        REQUIRE(r.cache.has_value() == (tier != v1::GPU));
        if (r.cache.has_value()) {
          CHECK(r.cache->argv == Words(ExpectedCache(e, build.engine, tier, replicas)));
          CHECK(EnvText(r.cache->env) == e.cache_env);
        }
        REQUIRE(r.replicas.size() == static_cast<size_t>(replicas));
        for (int i = 0; i < replicas; ++i) {
          const LaunchPlan& replica = r.replicas[i];
          CHECK(replica.name == absl::StrCat("replica-", i));
          CHECK(replica.argv == Words(ExpectedReplica(e, tier, i)));
          CHECK(EnvText(replica.env) == ExpectedReplicaEnv(e, i));
          // Only an AMD replica drops the agent's CUDA_VISIBLE_DEVICES (vLLM's ROCm check).
          CHECK(replica.unset_env == (build.vendor == v1::AMD
                                          ? std::vector<std::string>{"CUDA_VISIBLE_DEVICES"}
                                          : std::vector<std::string>{}));
          // Every tier holds the hybrid KV cache manager off, so the GPU KV capacity matches.
          CHECK(std::count(replica.argv.begin(), replica.argv.end(),
                           "--disable-hybrid-kv-cache-manager") == 1);
          const std::string line = absl::StrJoin(replica.argv, " ");
          // GPU never gets a connector; the others all point at the one cache server.
          CHECK((line.find("--kv-transfer-config") != std::string::npos) == (tier != v1::GPU));
        }
      }
    }
  }
}

TEST_CASE("Without overrides and seed only the required flags are rendered") {
  v1::JobSpec job = TestJob(v1::SIM, v1::VENDOR_UNSPECIFIED, 1);
  job.clear_engine_overrides();
  job.clear_seed();
  job.set_cpu_pool_gb(1.5);
  job.set_nvme_pool_gb(0.25);
  const ScenarioWiring wiring = TestWiring(1);
  v1::Profile profile = Shipped(kSimVllmProfile);
  profile.clear_extra_args();
  LaunchPlan replica = RenderReplica(profile, job, TestScenario(v1::GPU), wiring, 0);
  CHECK(replica.argv == Words("kvsim-vllm serve meta-llama/Llama-3.1-8B-Instruct --host "
                              "127.0.0.2 --port 8000 --tensor-parallel-size 2 "
                              "--disable-hybrid-kv-cache-manager"));
  v1::Profile cache_profile = Shipped(kSimLmcacheProfile);
  cache_profile.clear_extra_args();
  LaunchPlan cache = RenderCacheServer(cache_profile, job, TestScenario(v1::NVME), wiring);
  CHECK(cache.argv ==
        Words("kvsim-lmcache server --host 127.0.0.1 --port 5555 --http-host 127.0.0.1 "
              "--http-port 8080 --prometheus-port 9090 --l1-size-gb 1.5 --eviction-policy LRU "
              "--max-workers 1 "
              R"(--l2-adapter {"type":"fs","base_path":"/var/lib/kvbench/nvme/l2",)"
              R"("max_capacity_gb":0.25,"eviction":{"eviction_policy":"LRU",)"
              R"("trigger_watermark":0.8,"eviction_ratio":0.2}} --sim-l2-bytes-scale 0.001)"));
}

TEST_CASE("A real profile never gets simulator flags, even with sim_time_scale set") {
  v1::JobSpec job = TestJob(v1::VLLM, v1::NVIDIA, 1);
  LaunchPlan replica =
      RenderReplica(Shipped(kVllmNvidiaProfile), job, TestScenario(v1::NVME), TestWiring(1), 0);
  LaunchPlan cache =
      RenderCacheServer(Shipped(kLmcacheNvmeProfile), job, TestScenario(v1::NVME), TestWiring(1));
  for (const LaunchPlan* plan : {&replica, &cache}) {
    for (const std::string& arg : plan->argv) CHECK(arg.rfind("--sim-", 0) == std::string::npos);
  }
}

TEST_CASE("An AMD profile that sets CUDA_VISIBLE_DEVICES itself keeps it") {
  v1::Profile profile = Shipped(kVllmAmdProfile);
  (*profile.mutable_env())["CUDA_VISIBLE_DEVICES"] = "0,1";
  LaunchPlan replica = RenderReplica(profile, TestJob(v1::VLLM, v1::AMD, 1), TestScenario(v1::GPU),
                                     TestWiring(1), 0);
  CHECK(replica.unset_env.empty());
  CHECK(replica.env.at("CUDA_VISIBLE_DEVICES") == "0,1");
}

// Every spec string that reaches an argv, at the edge of what the spec validator lets
// through, must stay a value: the flags of a rendered argv are the renderer's own, whatever the
// strings (the validator refuses anything starting with '-': job_spec_validator_test).
TEST_CASE("Spec strings never become flags of a rendered argv") {
  auto flags = [](const v1::JobSpec& job, v1::Tier tier) {
    std::vector<std::string> found;
    const ScenarioWiring wiring = TestWiring(2);
    const v1::Scenario scenario = TestScenario(tier);
    absl::StatusOr<ProfileChoice> choice = ChooseProfiles(job, tier);
    REQUIRE(choice.ok());
    std::vector<std::vector<std::string>> argvs = {
        RenderReplica(Shipped(choice->engine), job, scenario, wiring, 0).argv};
    if (choice->cache_server.has_value()) {
      argvs.push_back(
          RenderCacheServer(Shipped(*choice->cache_server), job, scenario, wiring).argv);
    }
    for (const auto& argv : argvs) {
      for (const std::string& word : argv) {
        if (!word.empty() && word.front() == '-') found.push_back(word);
      }
    }
    return found;
  };
  for (v1::Engine engine : {v1::VLLM, v1::SIM}) {
    for (v1::Tier tier : {v1::GPU, v1::CPU_RAM, v1::NVME}) {
      v1::JobSpec plain = TestJob(engine, v1::NVIDIA, 2);
      v1::JobSpec edgy = plain;
      edgy.set_name("x.-_--help");
      edgy.set_model("org-/m--trust-remote-code+x");
      edgy.mutable_dataset()->set_code("--served-model-name");
      edgy.mutable_dataset()->set_path("--x/-y.json");
      (*edgy.mutable_labels())["--port"] = "--host";
      INFO(v1::Engine_Name(engine) << " " << v1::Tier_Name(tier));
      std::vector<std::string> expected = flags(plain, tier);
      // The model is rendered positionally (vllm serve MODEL): with a leading '-' it would be a
      // flag, which is why the validator refuses that (CheckModelName).
      CHECK(flags(edgy, tier) == expected);
    }
  }
}

// LMCache's PrometheusConfig generation has no --metrics-sample-rate
// (LMCache/LMCache:lmcache/v1/mp_observability/config.py@ec451313); argparse would exit 2.
TEST_CASE("A cache server's flags that its release's --help lacks are left out and named") {
  const v1::JobSpec job = TestJob(v1::VLLM, v1::NVIDIA, 1);
  release::ProgramRelease older;
  older.flags_known = true;
  older.flags = {"--host",        "--port",       "--http-host",
                 "--http-port",   "--l1-size-gb", "--eviction-policy",
                 "--max-workers", "--chunk-size"};
  const LaunchPlan plan = RenderCacheServer(Shipped(kLmcacheCpuProfile), job,
                                            TestScenario(v1::CPU_RAM), TestWiring(1), &older);
  CHECK(plan.argv ==
        Words("lmcache server --host 127.0.0.1 --port 5555 --http-host 127.0.0.1 --http-port 8080 "
              "--l1-size-gb 8 --eviction-policy LRU --max-workers 1 --chunk-size=256"));
  CHECK(plan.dropped_flags ==
        std::vector<std::string>{"--prometheus-port=9090", "--metrics-sample-rate=0.01"});

  release::ProgramRelease current = older;
  current.flags.insert({"--prometheus-port", "--metrics-sample-rate"});
  const LaunchPlan full = RenderCacheServer(Shipped(kLmcacheCpuProfile), job,
                                            TestScenario(v1::CPU_RAM), TestWiring(1), &current);
  CHECK(full.dropped_flags.empty());
  CHECK(absl::StrJoin(full.argv, " ").find("--metrics-sample-rate=0.01") != std::string::npos);

  release::ProgramRelease unread;  // help not read: the release decides, as before the probe
  CHECK(RenderCacheServer(Shipped(kLmcacheCpuProfile), job, TestScenario(v1::CPU_RAM),
                          TestWiring(1), &unread)
            .argv == full.argv);
}

// otel_init.py@1519dfc2 switches LMCache to OTLP push when the variable is set.
TEST_CASE("A cache server never inherits OTEL_EXPORTER_OTLP_ENDPOINT unless its profile sets it") {
  const v1::JobSpec job = TestJob(v1::SIM, v1::VENDOR_UNSPECIFIED, 1);
  v1::Profile profile = Shipped(kSimLmcacheProfile);
  const LaunchPlan plan = RenderCacheServer(profile, job, TestScenario(v1::NVME), TestWiring(1));
  CHECK(plan.unset_env == std::vector<std::string>{kOtlpEndpointEnv});
  (*profile.mutable_env())[kOtlpEndpointEnv] = "http://collector:4317";
  const LaunchPlan pushing = RenderCacheServer(profile, job, TestScenario(v1::NVME), TestWiring(1));
  CHECK(pushing.unset_env.empty());
  CHECK(pushing.env.at(kOtlpEndpointEnv) == "http://collector:4317");
  // Replicas keep the agent's environment as before: vLLM reads no such variable for metrics.
  CHECK(RenderReplica(Shipped(kSimVllmProfile), job, TestScenario(v1::NVME), TestWiring(1), 0)
            .unset_env.empty());
}

// Without it vLLM >= 0.20 loads its own vendored LMCacheMPConnector, not LMCache's copy.
TEST_CASE("A profile's kv_connector_module_path is rendered last in --kv-transfer-config") {
  const v1::JobSpec job = TestJob(v1::VLLM, v1::NVIDIA, 1);
  v1::Profile profile = Shipped(kVllmNvidiaProfile);
  profile.set_kv_connector_module_path("lmcache.integration.vllm.lmcache_mp_connector");
  const std::string argv = absl::StrJoin(
      RenderReplica(profile, job, TestScenario(v1::CPU_RAM), TestWiring(1), 0).argv, " ");
  CHECK(
      argv.find(R"("lmcache.mp.mq_timeout":300},)"
                R"("kv_connector_module_path":"lmcache.integration.vllm.lmcache_mp_connector"})") !=
      std::string::npos);
  // The GPU tier has no connector, so no module either.
  CHECK(
      absl::StrJoin(RenderReplica(profile, job, TestScenario(v1::GPU), TestWiring(1), 0).argv, " ")
          .find("kv_connector_module_path") == std::string::npos);
}

TEST_CASE("Endpoint url") { CHECK((Endpoint{"127.0.0.3", 8001}.url()) == "http://127.0.0.3:8001"); }

}  // namespace
}  // namespace kvbench::agent::tiers
