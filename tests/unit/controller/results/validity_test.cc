#include "controller/results/validity.h"

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "controller/results/scenario_run.h"
#include "tests/unit/controller/results/validity_fixture.h"

namespace kvbench::results {
namespace {

using namespace testing;  // NOLINT(build/namespaces): the fixture of these tests

TEST_CASE("Validity of a clean job is VALID for every comparison group", "[validity]") {
  const std::vector<v1::Validity> verdicts =
      ComputeValidity(RunsOfJob(CleanJob({v1::GPU, v1::CPU_RAM}, {8, 32})));
  REQUIRE(verdicts.size() == 2);
  CHECK(verdicts[0].comparison_group() == "c8");
  CHECK(verdicts[1].comparison_group() == "c32");
  for (const v1::Validity& validity : verdicts) {
    INFO(validity.comparison_group());
    CHECK(validity.verdict() == v1::VERDICT_VALID);
    CHECK(validity.reasons().empty());
  }
}

TEST_CASE("Validity: INVALID reasons, one table row each", "[validity]") {
  struct Row {
    const char* name;
    std::function<void(std::vector<ScenarioRun>&)> change;  // runs[0] GPU, runs[1] CPU_RAM
    const char* code;
    std::vector<std::string> message_parts;
  };
  const Row rows[] = {
      {"osl differs",
       [](auto& runs) { runs[1].spec.set_osl(128); },
       kParameterDiffers,
       {"osl differs: 64 (00-gpu-c8) vs 128 (01-cpu-ram-c8)"}},
      {"model differs",
       [](auto& runs) { runs[1].spec.set_model("other/model"); },
       kParameterDiffers,
       {"model differs: \"meta-llama/Llama-3.1-8B-Instruct\" (00-gpu-c8) vs \"other/model\" "
        "(01-cpu-ram-c8)"}},
      {"num_rounds differs",
       [](auto& runs) { runs[1].spec.set_num_rounds(3); },
       kParameterDiffers,
       {"num_rounds differs: 5 (00-gpu-c8) vs 3 (01-cpu-ram-c8)"}},
      {"unset replicas read as the default 1",
       [](auto& runs) {
         runs[1].spec.clear_replicas();
         // The same KV capacity in one replica, so replicas is the only difference.
         runs[1].result->mutable_engine()->set_num_gpu_blocks(kReplicas * kGpuBlocks);
       },
       kParameterDiffers,
       {"replicas differs: 2 (00-gpu-c8) vs 1 (01-cpu-ram-c8)"}},
      {"dataset path differs",
       [](auto& runs) { runs[1].spec.mutable_dataset()->set_path("b.json"); },
       kParameterDiffers,
       {"dataset path differs: \"\" (00-gpu-c8) vs \"b.json\" (01-cpu-ram-c8)"}},
      {"achieved sessions differ",
       [](auto& runs) {
         runs[1].result->mutable_sessions()->set_achieved(6);
         runs[1].result->mutable_sessions()->set_requested(6);
       },
       kAchievedSessionsDiffer,
       {"achieved sessions differ: GPU 8, CPU_RAM 6"}},
      {"sessions below requested: the dataset ceiling",
       [](auto& runs) {
         for (ScenarioRun& run : runs) {
           run.result->mutable_sessions()->set_dataset_ceiling(5);
           run.result->mutable_sessions()->set_achieved(5);
         }
       },
       kSessionsBelowRequested,
       {"GPU, CPU_RAM: concurrency 8 requested but the dataset yields 5 virtual users at "
        "num_rounds 5"}},
      {"failed requests",
       [](auto& runs) {
         runs[1].result->mutable_sessions()->set_error(3);
         runs[1].result->mutable_sessions()->set_failed_requests(7);
         runs[1].result->mutable_sessions()->set_first_error("timeout");
         runs[1].result->mutable_latency()->set_requests_completed(153);
       },
       kFailedSessions,
       {"CPU_RAM: 3 error sessions, 7 of 160 requests failed (the first: timeout)"}},
      {"a replica died during the replay, no request failed",
       [](auto& runs) {
         runs[0].result->add_process_failures(
             "replica-1 killed by signal 9 (SIGKILL) during the replay");
       },
       kProcessFailed,
       {"GPU: replica-1 killed by signal 9 (SIGKILL) during the replay"}},
      {"the cache server died",
       [](auto& runs) {
         runs[1].result->add_process_failures("cache-server exited with code 1 during the replay");
       },
       kProcessFailed,
       {"CPU_RAM: cache-server exited with code 1 during the replay"}},
      {"L2 stores failed (a full NVMe pool disk)",
       [](auto& runs) {
         runs[1].result->mutable_lmcache()->set_l2_store_submitted_chunks(5678);
         runs[1].result->mutable_lmcache()->set_l2_store_failed_chunks(1234);
       },
       kL2StoreFailed,
       {"CPU_RAM: 1,234 of 5,678 chunks failed to store into L2"}},
      {"a FAILED scenario",
       [](auto& runs) {
         runs[1].state = v1::SCENARIO_STATE_FAILED;
         runs[1].error = "replica-0 exited with code 1";
         runs[1].result.reset();
       },
       kScenarioDidNotSucceed,
       {"01-cpu-ram-c8 did not succeed: replica-0 exited with code 1"}},
      {"a CANCELLED scenario without an error text",
       [](auto& runs) {
         runs[0].state = v1::SCENARIO_STATE_CANCELLED;
         runs[0].result.reset();
       },
       kScenarioDidNotSucceed,
       {"00-gpu-c8 did not succeed: SCENARIO_STATE_CANCELLED"}},
      {"no GPU tier",
       [](auto& runs) {
         runs[0].scenario.set_tier(v1::NVME);
         runs[0].result->set_tier(v1::NVME);
       },
       kNoBaseline,
       {"no GPU scenario", "(tiers: NVME, CPU_RAM)"}},
      {"GPU tier with twice the KV blocks (hybrid KV cache manager on in GPU only)",
       [](auto& runs) { runs[0].result->mutable_engine()->set_num_gpu_blocks(2 * kGpuBlocks); },
       kGpuKvCapacityDiffers,
       {"GPU KV capacity differs: GPU 2 replicas x 2,048 blocks x 16 tokens = 65,536 tokens, "
        "CPU_RAM 2 replicas x 1,024 blocks x 16 tokens = 32,768 tokens"}},
      {"same blocks, another block size",
       [](auto& runs) { runs[1].result->mutable_engine()->set_block_size(32); },
       kGpuKvCapacityDiffers,
       {"CPU_RAM 2 replicas x 1,024 blocks x 32 tokens = 65,536 tokens"}},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    std::vector<ScenarioRun> runs = CleanPair();
    row.change(runs);
    const v1::Validity validity = OnlyVerdict(runs);
    CHECK(validity.comparison_group() == "c8");
    CHECK(validity.verdict() == v1::VERDICT_INVALID);
    REQUIRE(validity.reasons_size() == 1);
    CHECK(validity.reasons(0).code() == row.code);
    for (const std::string& part : row.message_parts) {
      INFO(validity.reasons(0).message());
      CHECK_THAT(validity.reasons(0).message(), Catch::Contains(part));
    }
  }
}

TEST_CASE("Validity names every scenario that differs and every failed check", "[validity]") {
  std::vector<ScenarioRun> runs = RunsOfJob(CleanJob({v1::GPU, v1::CPU_RAM, v1::NVME}, {8}));
  runs[1].spec.set_osl(128);
  runs[2].spec.set_osl(256);
  runs[2].result->mutable_sessions()->set_failed_requests(2);
  runs[2].result->mutable_latency()->set_requests_completed(40);
  const v1::Validity validity = OnlyVerdict(runs);
  CHECK(validity.verdict() == v1::VERDICT_INVALID);
  CHECK(Codes(validity) == std::vector<std::string>{kParameterDiffers, kFailedSessions});
  CHECK(validity.reasons(0).message() ==
        "osl differs: 64 (00-gpu-c8) vs 128 (01-cpu-ram-c8), 256 (02-nvme-c8)");
  CHECK(validity.reasons(1).message() == "NVME: 0 error sessions, 2 of 42 requests failed");
}

TEST_CASE("Validity compares only the KV capacities that are reported", "[validity]") {
  std::vector<ScenarioRun> runs = RunsOfJob(CleanJob({v1::GPU, v1::CPU_RAM, v1::NVME}, {8}));
  runs[1].result->mutable_engine()->clear_num_gpu_blocks();  // CPU_RAM's scrape had no blocks
  CHECK(OnlyVerdict(runs).verdict() == v1::VERDICT_VALID);
  runs[2].result->mutable_engine()->set_num_gpu_blocks(kGpuBlocks + 1);
  const v1::Validity validity = OnlyVerdict(runs);
  CHECK(validity.verdict() == v1::VERDICT_INVALID);
  CHECK(Codes(validity) == std::vector<std::string>{kGpuKvCapacityDiffers});
  CHECK(validity.reasons(0).message() ==
        "GPU KV capacity differs: GPU 2 replicas x 1,024 blocks x 16 tokens = 32,768 tokens, "
        "NVME 2 replicas x 1,025 blocks x 16 tokens = 32,800 tokens");
}

TEST_CASE("Validity gives no verdict to a group of one scenario", "[validity]") {
  CHECK(ComputeValidity(RunsOfJob(CleanJob({v1::GPU}, {8, 16}))).empty());
  CHECK(ComputeValidity({}).empty());
  // A lone NVME scenario next to a full group: only the full group is judged.
  std::vector<ScenarioRun> runs = CleanPair();
  runs.push_back(RunsOfJob(CleanJob({v1::NVME}, {4})).front());
  const v1::Validity validity = OnlyVerdict(runs);
  CHECK(validity.comparison_group() == "c8");
}

TEST_CASE("Validity waits until every scenario of a group has finished", "[validity]") {
  std::vector<ScenarioRun> runs = RunsOfJob(CleanJob({v1::GPU, v1::CPU_RAM}, {8, 16}));
  runs[3].state = v1::SCENARIO_STATE_RUNNING;  // 03-cpu-ram-c16
  runs[3].result.reset();
  const v1::Validity validity = OnlyVerdict(runs);
  CHECK(validity.comparison_group() == "c8");
}

TEST_CASE("Validity orders groups by concurrency and falls back to c<concurrency>", "[validity]") {
  v1::Job job = CleanJob({v1::GPU, v1::NVME}, {64, 4, 16});
  for (v1::ScenarioStatus& status : *job.mutable_scenarios()) {
    v1::Scenario* scenario = status.mutable_scenario();
    if (scenario->concurrency() == 16) scenario->set_comparison_group("sixteen");
    if (scenario->concurrency() == 4) scenario->clear_comparison_group();
  }
  const std::vector<v1::Validity> verdicts = ComputeValidity(RunsOfJob(job));
  std::vector<std::string> groups;
  for (const v1::Validity& validity : verdicts) {
    groups.push_back(validity.comparison_group());
    CHECK(validity.verdict() == v1::VERDICT_VALID);
  }
  CHECK(groups == std::vector<std::string>{"c4", "sixteen", "c64"});
}

// The LMCache notes (the group also carries its routing and exercised-evidence notes).
std::vector<std::string> LmcacheNoteCodes(const v1::Validity& validity) {
  std::vector<std::string> codes;
  for (const std::string& code : NoteCodes(validity)) {
    if (code == kLmcacheEventsDropped || code == kNvmeReadsNotFromDisk) codes.push_back(code);
  }
  return codes;
}

TEST_CASE("Validity: LMCache notes, one table row each, never changing the verdict", "[validity]") {
  struct Row {
    const char* name;
    std::function<void(v1::ScenarioResult& nvme)> change;
    std::vector<std::string> notes;
    std::string message;  // contained in the first note
  };
  const std::vector<Row> rows = {
      {"nothing to say", [](v1::ScenarioResult&) {}, {}, ""},
      {"no dropped events",
       [](v1::ScenarioResult& r) { r.mutable_lmcache()->set_dropped_events(0); },
       {},
       ""},
      {"dropped events",
       [](v1::ScenarioResult& r) { r.mutable_lmcache()->set_dropped_events(1234); },
       {kLmcacheEventsDropped},
       "NVME: LMCache dropped 1,234 metric events during the replay"},
      {"reads from the page cache",
       [](v1::ScenarioResult& r) {
         v1::ResultWarning* warning = r.add_warnings();
         warning->set_code("nvme_reads_not_from_disk");
         warning->set_message("the pool's device vda read 0 bytes");
       },
       {kNvmeReadsNotFromDisk},
       "NVME: the pool's device vda read 0 bytes"},
      {"another warning is not a validity note",
       [](v1::ScenarioResult& r) {
         r.add_warnings()->set_code("cache_server_metrics_unavailable");
       },
       {},
       ""},
      {"both",
       [](v1::ScenarioResult& r) {
         r.mutable_lmcache()->set_dropped_events(3);
         r.add_warnings()->set_code("nvme_reads_not_from_disk");
       },
       {kLmcacheEventsDropped, kNvmeReadsNotFromDisk},
       "NVME: LMCache dropped 3 metric events"},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    v1::Job job = CleanJob({v1::GPU, v1::NVME}, {8});
    row.change(*job.mutable_scenarios(1)->mutable_result());
    const v1::Validity validity = OnlyVerdict(RunsOfJob(job));
    CHECK(validity.verdict() == v1::VERDICT_VALID);
    CHECK(validity.reasons().empty());
    CHECK(LmcacheNoteCodes(validity) == row.notes);
    if (!row.message.empty()) {
      REQUIRE(validity.notes_size() > 0);
      CHECK_THAT(validity.notes(0).message(), Catch::Contains(row.message));
    }
  }
}

// Two repeats of the clean GPU/CPU_RAM pair at concurrency 8 (JobSpec.repeats 2).
std::vector<ScenarioRun> CleanRepeats() {
  std::vector<ScenarioRun> runs;
  for (int repeat = 1; repeat <= 2; ++repeat) {
    for (ScenarioRun run : CleanPair()) {
      run.scenario.set_repeat(repeat);
      run.scenario.set_scenario_id(absl::StrCat(run.scenario.scenario_id(), "-r", repeat));
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

TEST_CASE("Validity with repeats: each repeat is judged alone, the group takes the worst",
          "[validity]") {
  const v1::Validity clean = OnlyVerdict(CleanRepeats());
  CHECK(clean.verdict() == v1::VERDICT_VALID);
  REQUIRE(clean.notes_size() >= 2);
  CHECK_THAT(clean.notes(0).message(), Catch::StartsWith("repeat 1: "));
  CHECK_THAT(clean.notes(clean.notes_size() - 1).message(), Catch::StartsWith("repeat 2: "));

  // Repeat 2's CPU_RAM did different work: the group is INVALID, the reason names the repeat.
  std::vector<ScenarioRun> runs = CleanRepeats();
  runs[3].spec.set_osl(128);
  const v1::Validity broken = OnlyVerdict(runs);
  CHECK(broken.verdict() == v1::VERDICT_INVALID);
  CHECK(Codes(broken) == std::vector<std::string>{kParameterDiffers});
  CHECK(broken.reasons(0).message() ==
        "repeat 2: osl differs: 64 (00-gpu-c8-r2) vs 128 (01-cpu-ram-c8-r2)");

  // Another repeat's GPU tier is no tier to compare against: each repeat has its own baseline.
  runs = CleanRepeats();
  runs.erase(runs.begin() + 2);  // repeat 2's GPU
  const v1::Validity no_baseline = OnlyVerdict(runs);
  CHECK(no_baseline.verdict() == v1::VERDICT_VALID);  // repeat 2 (one scenario) compares nothing
}

TEST_CASE("Validity with repeats of a single tier gives no verdict: nothing is compared",
          "[validity]") {
  std::vector<ScenarioRun> runs = CleanRepeats();
  runs.erase(runs.begin() + 3);
  runs.erase(runs.begin() + 1);  // two GPU repeats left
  CHECK(ComputeValidity(runs).empty());
}

TEST_CASE("A capacity search's probe without a GPU scenario is no comparison, not an invalid one",
          "[validity]") {
  std::vector<ScenarioRun> runs = CleanPair();
  runs[0].scenario.set_tier(v1::NVME);  // NVME and CPU_RAM probed 8 users, GPU did not
  runs[0].result->set_tier(v1::NVME);
  for (ScenarioRun& run : runs) {
    run.spec.mutable_concurrency_search()->set_min(1);
    run.spec.mutable_concurrency_search()->set_max(32);
  }
  CHECK(ComputeValidity(runs).empty());
  // Where the GPU tier probed the same concurrency, it is compared as in any job.
  std::vector<ScenarioRun> with_gpu = CleanPair();
  for (ScenarioRun& run : with_gpu) run.spec.mutable_concurrency_search()->set_max(32);
  CHECK(OnlyVerdict(with_gpu).verdict() != v1::VERDICT_UNSPECIFIED);
}

}  // namespace
}  // namespace kvbench::results
