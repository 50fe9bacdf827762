#include "controller/results/validity.h"

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/results/scenario_run.h"

namespace kvbench::results {
namespace {

constexpr int kReplicas = 2;
constexpr int kGpuBlocks = 1024;  // per replica: 2 x 1,024 x 16 = 32,768 tokens
constexpr int kBlockSize = 16;

std::string Slug(v1::Tier tier) {
  switch (tier) {
    case v1::GPU:
      return "gpu";
    case v1::CPU_RAM:
      return "cpu-ram";
    case v1::NVME:
      return "nvme";
    default:
      return "unknown";
  }
}

// A clean, succeeded result: every session achieved, no failures, the GPU tier's KV capacity
// reported, a working set of 120,000 tokens (above 32,768) and external hits in offload tiers.
v1::ScenarioResult CleanResult(const v1::Scenario& scenario) {
  v1::ScenarioResult result;
  result.set_scenario_id(scenario.scenario_id());
  result.set_tier(scenario.tier());
  result.set_concurrency(scenario.concurrency());
  v1::SessionCounts* sessions = result.mutable_sessions();
  sessions->set_requested(scenario.sessions());
  sessions->set_achieved(scenario.sessions());
  sessions->set_dataset_ceiling(100);
  sessions->set_total(scenario.sessions());
  sessions->set_complete(scenario.sessions());
  v1::EngineMetrics* engine = result.mutable_engine();
  engine->set_num_gpu_blocks(kGpuBlocks);
  engine->set_block_size(kBlockSize);
  engine->set_local_hit_rate(0.5);
  if (scenario.tier() != v1::GPU) engine->set_external_hit_rate(0.4);
  result.set_peak_concurrent_tokens(120000);
  return result;
}

// A job of tiers x concurrencies expanded as the controller does, every scenario succeeded.
v1::Job CleanJob(const std::vector<v1::Tier>& tiers, const std::vector<int>& concurrencies) {
  v1::Job job;
  job.set_job_id("job-1");
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_model("meta-llama/Llama-3.1-8B-Instruct");
  spec->set_build(v1::NVIDIA);
  spec->set_engine(v1::SIM);
  spec->set_replicas(kReplicas);
  spec->set_tensor_parallel_size(1);
  spec->mutable_dataset()->set_code("sharegpt");
  spec->set_num_rounds(5);
  spec->set_isl(0);
  spec->set_osl(64);
  for (v1::Tier tier : tiers) spec->add_tiers(tier);
  for (int c : concurrencies) spec->add_concurrency(c);
  int index = 0;
  for (int c : concurrencies) {
    for (v1::Tier tier : tiers) {
      v1::ScenarioStatus* status = job.add_scenarios();
      v1::Scenario* scenario = status->mutable_scenario();
      scenario->set_scenario_id(absl::StrFormat("%02d-%s-c%d", index, Slug(tier), c));
      scenario->set_job_id(job.job_id());
      scenario->set_index(index++);
      scenario->set_tier(tier);
      scenario->set_concurrency(c);
      scenario->set_sessions(c);
      scenario->set_comparison_group(absl::StrCat("c", c));
      status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
      *status->mutable_result() = CleanResult(*scenario);
    }
  }
  return job;
}

// GPU and CPU_RAM at concurrency 8: 00-gpu-c8, 01-cpu-ram-c8.
std::vector<ScenarioRun> CleanPair() { return RunsOfJob(CleanJob({v1::GPU, v1::CPU_RAM}, {8})); }

std::vector<std::string> Codes(const v1::Validity& validity) {
  std::vector<std::string> codes;
  for (const v1::ValidityReason& reason : validity.reasons()) codes.push_back(reason.code());
  return codes;
}

// The one verdict of a single-group input.
v1::Validity OnlyVerdict(const std::vector<ScenarioRun>& runs) {
  std::vector<v1::Validity> verdicts = ComputeValidity(runs);
  REQUIRE(verdicts.size() == 1);
  return verdicts.front();
}

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
       {"concurrency 8 requested but the dataset yields 5 virtual users at num_rounds 5",
        "(GPU, CPU_RAM)"}},
      {"failed requests",
       [](auto& runs) {
         runs[1].result->mutable_sessions()->set_error(3);
         runs[1].result->mutable_sessions()->set_failed_requests(7);
       },
       kFailedSessions,
       {"CPU_RAM: 3 error sessions, 7 failed requests"}},
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
  const v1::Validity validity = OnlyVerdict(runs);
  CHECK(validity.verdict() == v1::VERDICT_INVALID);
  CHECK(Codes(validity) == std::vector<std::string>{kParameterDiffers, kFailedSessions});
  CHECK(validity.reasons(0).message() ==
        "osl differs: 64 (00-gpu-c8) vs 128 (01-cpu-ram-c8), 256 (02-nvme-c8)");
  CHECK(validity.reasons(1).message() == "NVME: 0 error sessions, 2 failed requests");
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

TEST_CASE("Validity: was the offload exercised, one table row each", "[validity]") {
  struct Row {
    const char* name;
    std::function<void(std::vector<ScenarioRun>&)> change;  // runs[0] GPU, runs[1] CPU_RAM
    v1::Verdict verdict;
    std::vector<std::string> message_parts;  // of the one kWorkingSetFitsGpu reason, if any
  };
  auto fits = [](std::vector<ScenarioRun>& runs) {
    for (ScenarioRun& run : runs) run.result->set_peak_concurrent_tokens(12000);
  };
  auto no_external_hits = [](std::vector<ScenarioRun>& runs) {
    runs[1].result->mutable_engine()->set_external_hit_rate(0);
  };
  const Row rows[] = {
      {"working set above capacity, no external hits: VALID",
       no_external_hits,
       v1::VERDICT_VALID,
       {}},
      {"working set fits and no external hits: NOT_EXERCISED",
       [&](auto& runs) {
         fits(runs);
         no_external_hits(runs);
       },
       v1::VERDICT_NOT_EXERCISED,
       {"working set peak 12,000 tokens fits the GPU tier's KV capacity of 2 replicas x 1,024 "
        "blocks x 16 tokens = 32,768 tokens",
        "no offload tier saw external prefix-cache hits"}},
      {"working set exactly at capacity: NOT_EXERCISED",
       [&](auto& runs) {
         for (ScenarioRun& run : runs) run.result->set_peak_concurrent_tokens(32768);
         runs[1].result->mutable_engine()->clear_external_hit_rate();
       },
       v1::VERDICT_NOT_EXERCISED,
       {"32,768 tokens fits"}},
      {"working set fits but the offload tier served external hits: VALID",
       fits,
       v1::VERDICT_VALID,
       {}},
      {"capacity unknown, external hits: VALID",
       [](auto& runs) { runs[0].result->mutable_engine()->clear_num_gpu_blocks(); },
       v1::VERDICT_VALID,
       {}},
      {"capacity unknown, no external hits, no preemptions: NOT_EXERCISED",
       [&](auto& runs) {
         runs[0].result->mutable_engine()->clear_block_size();
         no_external_hits(runs);
       },
       v1::VERDICT_NOT_EXERCISED,
       {"could not be compared", "num_gpu_blocks or block_size not reported",
        "no offload tier saw external prefix-cache hits"}},
      {"working set unknown, no external hits, no preemptions: NOT_EXERCISED",
       [&](auto& runs) {
         runs[0].result->clear_peak_concurrent_tokens();
         no_external_hits(runs);
       },
       v1::VERDICT_NOT_EXERCISED,
       {"could not be compared with the GPU tier's KV capacity (working set not measured)",
        "nor did the GPU tier preempt requests"}},
      {"working set unknown, no external hits, GPU preemptions: VALID",
       [&](auto& runs) {
         runs[0].result->clear_peak_concurrent_tokens();
         runs[0].result->mutable_engine()->set_num_preemptions(4);
         no_external_hits(runs);
       },
       v1::VERDICT_VALID,
       {}},
      {"fits but INVALID for another reason: INVALID, no exercised reason",
       [&](auto& runs) {
         fits(runs);
         no_external_hits(runs);
         runs[1].spec.set_isl(4096);
       },
       v1::VERDICT_INVALID,
       {}},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    std::vector<ScenarioRun> runs = CleanPair();
    row.change(runs);
    const v1::Validity validity = OnlyVerdict(runs);
    CHECK(validity.verdict() == row.verdict);
    if (row.verdict == v1::VERDICT_NOT_EXERCISED) {
      REQUIRE(validity.reasons_size() == 1);
      CHECK(validity.reasons(0).code() == kWorkingSetFitsGpu);
      for (const std::string& part : row.message_parts) {
        INFO(validity.reasons(0).message());
        CHECK_THAT(validity.reasons(0).message(), Catch::Contains(part));
      }
    } else if (row.verdict == v1::VERDICT_VALID) {
      CHECK(validity.reasons().empty());
    } else {
      CHECK(Codes(validity) == std::vector<std::string>{kParameterDiffers});
    }
  }
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

}  // namespace
}  // namespace kvbench::results

namespace kvbench::results {
namespace {

std::vector<std::string> NoteCodes(const v1::Validity& validity) {
  std::vector<std::string> codes;
  for (const v1::ValidityReason& note : validity.notes()) codes.push_back(note.code());
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
    CHECK(NoteCodes(validity) == row.notes);
    if (!row.message.empty()) {
      REQUIRE(validity.notes_size() > 0);
      CHECK_THAT(validity.notes(0).message(), Catch::Contains(row.message));
    }
  }
}

}  // namespace
}  // namespace kvbench::results
