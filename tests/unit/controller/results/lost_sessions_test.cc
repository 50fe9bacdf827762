// Sessions as they happened and equal work: a tier that lost sessions, or that did
// different work from the GPU tier, makes its group INVALID with the counts named.

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "controller/results/validity.h"
#include "tests/unit/controller/results/validity_fixture.h"

namespace kvbench::results {
namespace {

using testing::CleanJob;
using testing::CleanPair;
using testing::Codes;
using testing::OnlyVerdict;

v1::SessionCounts& Sessions(ScenarioRun& run) { return *run.result->mutable_sessions(); }
v1::LatencyMetrics& MutableLatency(ScenarioRun& run) { return *run.result->mutable_latency(); }

TEST_CASE("Validity: lost sessions and unequal work, one table row each", "[validity]") {
  struct Row {
    const char* name;
    std::function<void(std::vector<ScenarioRun>&)> change;  // runs[0] GPU, runs[1] CPU_RAM
    const char* code;
    std::vector<std::string> messages;  // every reason of `code`, in order
  };
  // ISL 2048 cut 12 of the 16 users in every tier (the dataset and the tokenizer are shared).
  auto isl_cut = [](std::vector<ScenarioRun>& runs) {
    for (ScenarioRun& run : runs) {
      run.spec.set_isl(2048);
      v1::SessionCounts& s = Sessions(run);
      s.set_requested(16);
      s.set_achieved(16);
      s.set_total(16);
      s.set_complete(4);
      s.set_truncated_by_isl(12);
      s.set_dataset_ceiling(40);
      s.set_dataset_ceiling_under_isl(20);  // the seeded choice took users that do not fit
      run.scenario.set_sessions(16);
    }
  };
  const Row rows[] = {
      {"ISL cut the same users in every tier: one reason naming both",
       isl_cut,
       kSessionsLost,
       {"GPU, CPU_RAM: 4 of 16 virtual users complete (12 truncated by ISL 2048); 20 of the "
        "dataset's 40 virtual users fit under ISL 2048"}},
      {"one tier stopped early: its own counts",
       [](auto& runs) {
         Sessions(runs[1]).set_complete(3);
         Sessions(runs[1]).set_incomplete(4);
         Sessions(runs[1]).set_not_started(1);
       },
       kSessionsLost,
       {"CPU_RAM: 3 of 8 virtual users complete (4 incomplete, 1 not started)"}},
      {"different lost sessions per tier: one reason each",
       [](auto& runs) {
         Sessions(runs[0]).set_complete(7);
         Sessions(runs[0]).set_incomplete(1);
         Sessions(runs[1]).set_complete(6);
         Sessions(runs[1]).set_not_started(2);
       },
       kSessionsLost,
       {"GPU: 7 of 8 virtual users complete (1 incomplete)",
        "CPU_RAM: 6 of 8 virtual users complete (2 not started)"}},
      {"CPU_RAM decoded 8.4% less (osl 0 without ignore_eos)",
       [](auto& runs) {
         MutableLatency(runs[0]).set_output_tokens_total(6202);
         MutableLatency(runs[1]).set_output_tokens_total(5680);
       },
       kWorkDiffers,
       {"output tokens differ beyond ±1.0%: GPU 6,202, CPU_RAM 5,680 (-8.4%): the tiers did "
        "different work"}},
      {"prompt tokens differ",
       [](auto& runs) { MutableLatency(runs[1]).set_prompt_tokens_total(90000); },
       kWorkDiffers,
       {"prompt tokens differ beyond ±1.0%: GPU 100,000, CPU_RAM 90,000 (-10.0%)"}},
      {"a GPU tier that produced nothing, an offload tier that did",
       [](auto& runs) { MutableLatency(runs[0]).set_output_tokens_total(0); },
       kWorkDiffers,
       {"output tokens differ beyond ±1.0%: GPU 0, CPU_RAM 5,000"}},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    std::vector<ScenarioRun> runs = CleanPair();
    row.change(runs);
    const v1::Validity validity = OnlyVerdict(runs);
    CHECK(validity.verdict() == v1::VERDICT_INVALID);
    std::vector<std::string> messages;
    for (const v1::ValidityReason& reason : validity.reasons()) {
      CHECK(reason.code() == std::string(row.code));
      messages.push_back(reason.message());
    }
    REQUIRE(messages.size() == row.messages.size());
    for (size_t i = 0; i < messages.size(); ++i) {
      CHECK_THAT(messages[i], Catch::StartsWith(row.messages[i]));
    }
  }
}

TEST_CASE("Validity: fewer users fit under the ISL than were requested", "[validity]") {
  std::vector<ScenarioRun> runs = CleanPair();
  for (ScenarioRun& run : runs) {
    run.spec.set_isl(4096);
    v1::SessionCounts& s = Sessions(run);
    s.set_dataset_ceiling(32);
    s.set_dataset_ceiling_under_isl(5);
    s.set_achieved(5);  // the runner's min(requested, ceiling, ceiling under ISL)
    s.set_complete(5);
    s.set_truncated_by_isl(3);
  }
  const v1::Validity validity = OnlyVerdict(runs);
  CHECK(Codes(validity) == std::vector<std::string>{kSessionsBelowRequested, kSessionsLost});
  CHECK(validity.reasons(0).message() ==
        "GPU, CPU_RAM: concurrency 8 requested but only 5 of the dataset's 32 virtual users fit "
        "under ISL 4096");
}

TEST_CASE("Validity: work within the tolerance is equal work", "[validity]") {
  std::vector<ScenarioRun> runs = RunsOfJob(CleanJob({v1::GPU, v1::CPU_RAM, v1::NVME}, {8}));
  MutableLatency(runs[1]).set_output_tokens_total(testing::kOutputTokens + 50);  // +1.0%
  MutableLatency(runs[2]).set_output_tokens_total(testing::kOutputTokens - 50);  // -1.0%
  CHECK(OnlyVerdict(runs).verdict() == v1::VERDICT_VALID);
  MutableLatency(runs[2]).set_output_tokens_total(testing::kOutputTokens - 51);
  const v1::Validity validity = OnlyVerdict(runs);
  CHECK(Codes(validity) == std::vector<std::string>{kWorkDiffers});
  CHECK_THAT(validity.reasons(0).message(),
             Catch::Contains("GPU 5,000, CPU_RAM 5,050 (+1.0%), NVME 4,949 (-1.0%)"));
}

TEST_CASE("Validity: an error session is a failure, not a lost session", "[validity]") {
  std::vector<ScenarioRun> runs = CleanPair();
  Sessions(runs[1]).set_complete(7);
  Sessions(runs[1]).set_error(1);
  Sessions(runs[1]).set_failed_requests(1);
  CHECK(Codes(OnlyVerdict(runs)) == std::vector<std::string>{kFailedSessions});
}

}  // namespace
}  // namespace kvbench::results
