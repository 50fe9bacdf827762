#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "controller/results/comparison_caveats.h"
#include "controller/results/validity.h"
#include "controller/results/versions_summary.h"
#include "tests/unit/controller/results/validity_fixture.h"

// What a group ran against. mixed_versions (engine, cache server or model differ
// between tiers), nvme_pool_unbounded (an L2 past its pool), the external counting caveat and the
// versions summary people read.
namespace kvbench::results {
namespace {

using namespace testing;  // NOLINT(build/namespaces): the fixture of these tests

void SetVersion(v1::ScenarioResult* result, const std::string& component,
                const std::string& version, bool simulated = false) {
  v1::ComponentVersion* entry = result->add_versions();
  entry->set_component(component);
  entry->set_version(version);
  entry->set_simulated(simulated);
}

std::vector<std::string> Messages(const v1::Validity& validity, const char* code) {
  std::vector<std::string> messages;
  for (const v1::ValidityReason& reason : validity.reasons()) {
    if (reason.code() == code) messages.push_back(reason.message());
  }
  return messages;
}

std::vector<ScenarioRun> Versioned(const std::string& gpu_vllm, const std::string& cpu_vllm) {
  std::vector<ScenarioRun> runs = CleanPair();
  SetVersion(&*runs[0].result, "vllm", gpu_vllm);
  SetVersion(&*runs[0].result, "kvbench", "0.9.0 (aaaa)");
  SetVersion(&*runs[1].result, "vllm", cpu_vllm);
  SetVersion(&*runs[1].result, "lmcache", "0.5.6");
  SetVersion(&*runs[1].result, "kvbench", "0.9.0 (bbbb)");
  return runs;
}

TEST_CASE("mixed_versions: tiers on different engine releases are invalid, naming both",
          "[validity][versions]") {
  const v1::Validity same = OnlyVerdict(Versioned("0.33.0", "0.33.0"));
  CHECK(Messages(same, kMixedVersions).empty());
  CHECK(same.verdict() == v1::VERDICT_VALID);  // kvbench's own revision may differ

  const v1::Validity mixed = OnlyVerdict(Versioned("0.33.0", "0.12.0"));
  CHECK(mixed.verdict() == v1::VERDICT_INVALID);
  CHECK(Messages(mixed, kMixedVersions) ==
        std::vector<std::string>{"vllm differs between the tiers: 0.12.0 (CPU_RAM) vs 0.33.0 "
                                 "(GPU); the deltas would mix a release change into the offload "
                                 "effect"});
  // A version nobody could read is not a difference.
  CHECK(Messages(OnlyVerdict(Versioned("unknown", "0.12.0")), kMixedVersions).empty());
}

TEST_CASE("mixed_versions: the model's config and the cache server count too",
          "[validity][versions]") {
  std::vector<ScenarioRun> runs = RunsOfJob(CleanJob({v1::GPU, v1::CPU_RAM, v1::NVME}, {8}));
  REQUIRE(runs.size() == 3);
  SetVersion(&*runs[0].result, "model_config", "sha256:aa");
  SetVersion(&*runs[1].result, "model_config", "sha256:aa");
  SetVersion(&*runs[1].result, "lmcache", "0.5.6");
  SetVersion(&*runs[2].result, "model_config", "sha256:aa");
  SetVersion(&*runs[2].result, "lmcache", "0.5.7");
  CHECK(Messages(OnlyVerdict(runs), kMixedVersions) ==
        std::vector<std::string>{"lmcache differs between the tiers: 0.5.6 (CPU_RAM) vs 0.5.7 "
                                 "(NVME); the deltas would mix a release change into the offload "
                                 "effect"});
}

TEST_CASE("nvme_pool_unbounded: an NVME L2 past its pool is invalid", "[validity][versions]") {
  std::vector<ScenarioRun> runs = RunsOfJob(CleanJob({v1::GPU, v1::NVME}, {8}));
  REQUIRE(runs.size() == 2);
  for (ScenarioRun& run : runs) run.spec.set_nvme_pool_gb(2);
  const double gib = 1024.0 * 1024.0 * 1024.0;
  runs[1].result->mutable_lmcache()->set_l2_usage_bytes_max(static_cast<int64_t>(2 * gib));
  CHECK(Messages(OnlyVerdict(runs), kNvmePoolUnbounded).empty());  // full, but bounded
  runs[1].result->mutable_lmcache()->set_l2_usage_bytes_max(static_cast<int64_t>(3.5 * gib));
  runs[1].result->mutable_lmcache()->set_l2_evicted_chunks(12);  // over between two ticks
  CHECK(Messages(OnlyVerdict(runs), kNvmePoolUnbounded).empty());
  runs[1].result->mutable_lmcache()->set_l2_evicted_chunks(0);
  const v1::Validity unbounded = OnlyVerdict(runs);
  CHECK(unbounded.verdict() == v1::VERDICT_INVALID);
  CHECK(Messages(unbounded, kNvmePoolUnbounded) ==
        std::vector<std::string>{
            "NVME's L2 held up to 3.50 GiB, more than its pool of 2 GiB, and evicted nothing: this "
            "LMCache release ignored the pool's eviction block, so the NVME tier ran with an "
            "unbounded pool "
            "(deploy/profiles/README.md \"Supported releases\")"});
}

TEST_CASE("Caveat: vLLM counted the tiers' external queries two ways", "[caveats][versions]") {
  std::vector<ScenarioRun> runs = RunsOfJob(CleanJob({v1::GPU, v1::CPU_RAM, v1::NVME}, {8}));
  REQUIRE(runs.size() == 3);
  runs[1].result->mutable_engine()->set_external_query_counting("prompt_minus_local");
  runs[2].result->mutable_engine()->set_external_query_counting("prompt_minus_local");
  const auto caveats_of = [&runs]() {
    return ComparisonCaveats({{&runs[0]}, {&runs[1]}, {&runs[2]}});
  };
  for (const std::string& caveat : caveats_of()) {
    CHECK(caveat.find("external queries two ways") == std::string::npos);
  }
  runs[2].result->mutable_engine()->set_external_query_counting("whole_prompt");
  bool said = false;
  for (const std::string& caveat : caveats_of()) {
    said = said || caveat ==
                       "vLLM counted external queries two ways in this group (CPU_RAM: "
                       "prompt_minus_local; NVME: whole_prompt): the external hit rates are not "
                       "comparable; \"offload served of prompt tokens\" is, being external hits "
                       "over prompt tokens either way";
  }
  CHECK(said);
}

TEST_CASE("The versions summary names each component once, and each version's tiers when mixed",
          "[versions]") {
  std::vector<ScenarioRun> runs = Versioned("0.33.0", "0.12.0");
  SetVersion(&*runs[0].result, "caddy", "v2.6.2");
  std::vector<const v1::ScenarioResult*> results = {&*runs[0].result, &*runs[1].result};
  const std::vector<ComponentVersions> summary = SummarizeVersions(results);
  REQUIRE(summary.size() == 4);
  CHECK(VersionsText(summary[0]) == "vllm 0.33.0 (GPU) vs 0.12.0 (CPU_RAM)");
  CHECK(summary[0].must_match);
  CHECK(VersionsText(summary[1]) == "lmcache 0.5.6");
  CHECK(VersionsText(summary[2]) == "caddy v2.6.2");
  CHECK(VersionsText(summary[3]) == "kvbench 0.9.0 (aaaa) (GPU) vs 0.9.0 (bbbb) (CPU_RAM)");
  CHECK_FALSE(summary[3].must_match);
  v1::ScenarioResult simulated;
  SetVersion(&simulated, "vllm", "0.33.0", /*simulated=*/true);
  CHECK(VersionsText(SummarizeVersions({&simulated}).front()) == "vllm 0.33.0 (simulated)");
}

}  // namespace
}  // namespace kvbench::results
