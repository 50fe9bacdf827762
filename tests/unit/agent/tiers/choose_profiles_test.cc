#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "agent/tiers/tier_renderer.h"
#include "tests/unit/agent/tiers/tiers_test_fixtures.h"

namespace kvbench::agent::tiers {
namespace {

using testing::TestJob;

TEST_CASE("ChooseProfiles: engine profile by engine and build, cache server by tier") {
  struct Row {
    v1::Engine engine;
    v1::Vendor build;
    v1::Tier tier;
    const char* engine_profile;
    std::optional<std::string> cache_profile;
  };
  const Row rows[] = {
      {v1::VLLM, v1::NVIDIA, v1::GPU, "vllm-nvidia", std::nullopt},
      {v1::VLLM, v1::NVIDIA, v1::CPU_RAM, "vllm-nvidia", "lmcache-cpu"},
      {v1::VLLM, v1::NVIDIA, v1::NVME, "vllm-nvidia", "lmcache-nvme"},
      {v1::VLLM, v1::AMD, v1::GPU, "vllm-amd", std::nullopt},
      {v1::VLLM, v1::AMD, v1::CPU_RAM, "vllm-amd", "lmcache-cpu"},
      {v1::VLLM, v1::AMD, v1::NVME, "vllm-amd", "lmcache-nvme"},
      {v1::SIM, v1::VENDOR_UNSPECIFIED, v1::GPU, "sim-vllm", std::nullopt},
      {v1::SIM, v1::NVIDIA, v1::CPU_RAM, "sim-vllm", "sim-lmcache"},
      {v1::SIM, v1::AMD, v1::NVME, "sim-vllm", "sim-lmcache"},
  };
  for (const Row& row : rows) {
    INFO(v1::Engine_Name(row.engine)
         << " " << v1::Vendor_Name(row.build) << " " << v1::Tier_Name(row.tier));
    absl::StatusOr<ProfileChoice> choice =
        ChooseProfiles(TestJob(row.engine, row.build, 1), row.tier);
    REQUIRE(choice.ok());
    CHECK(choice->engine == row.engine_profile);
    CHECK(choice->cache_server == row.cache_profile);
    // Every choice names a shipped profile of the right role (and tier, for cache servers).
    CHECK(testing::Shipped(choice->engine).role() == v1::ENGINE);
    if (choice->cache_server.has_value()) {
      const v1::Profile& cache = testing::Shipped(*choice->cache_server);
      CHECK(cache.role() == v1::CACHE_SERVER);
      CHECK(std::count(cache.tiers().begin(), cache.tiers().end(), row.tier) == 1);
    }
  }
}

TEST_CASE("ChooseProfiles refuses a VLLM job without a build, and unset engine or tier") {
  absl::StatusOr<ProfileChoice> no_build =
      ChooseProfiles(TestJob(v1::VLLM, v1::VENDOR_UNSPECIFIED, 1), v1::GPU);
  CHECK(no_build.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(no_build.status().message()), Catch::Contains("build"));
  CHECK(ChooseProfiles(TestJob(v1::ENGINE_UNSPECIFIED, v1::NVIDIA, 1), v1::GPU).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ChooseProfiles(TestJob(v1::SIM, v1::NVIDIA, 1), v1::TIER_UNSPECIFIED).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("SplitGpus gives each replica consecutive groups of tensor_parallel_size") {
  using Split = std::vector<std::vector<int>>;
  CHECK(*SplitGpus({0, 1, 2, 3}, 2, 2) == Split{{0, 1}, {2, 3}});
  CHECK(*SplitGpus({0, 1, 2, 3}, 4, 1) == Split{{0}, {1}, {2}, {3}});
  CHECK(*SplitGpus({4, 5, 6, 7, 0}, 1, 4) == Split{{4, 5, 6, 7}});
  CHECK(*SplitGpus({0, 1, 2}, 1, 1) == Split{{0}});  // spare GPUs stay unused
  absl::StatusOr<Split> short_of_gpus = SplitGpus({0, 1, 2}, 2, 2);
  CHECK(short_of_gpus.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(short_of_gpus.status().message()), Catch::Contains("need 4 GPUs"));
  CHECK(SplitGpus({0, 1}, 0, 1).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(SplitGpus({0, 1}, 1, 0).status().code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kvbench::agent::tiers
