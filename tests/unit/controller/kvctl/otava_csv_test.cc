// kvctl history --output otava-csv: Apache Otava's CSV layout (a `time` column, the `job_id`
// attribute, one metric column per line of the history), values that read back as the same
// doubles, and a run without a value in some line left out and named (Otava's importer fails on an
// empty metric cell).

#include "controller/kvctl/print/otava_csv.h"

#include <catch2/catch.hpp>
#include <sstream>

namespace kvbench::kvctl {
namespace {

report::History TwoLinesThreeRuns() {
  report::History history;
  history.metric = "latency.ttft_p95_s";
  for (const char* job : {"nightly-1", "nightly-2", "nightly-3"}) {
    report::HistoryRun run;
    run.job_id = job;
    run.fire_time = std::string("2026-12-0") + job[8] + "T02:00:00Z";
    history.runs.push_back(run);
  }
  report::HistorySeries gpu;
  gpu.agent_id = "h200-a";
  gpu.tier = v1::GPU;
  gpu.concurrency = 16;
  gpu.values = {0.1, 1e-7, 0.30000000000000004};
  report::HistorySeries cpu = gpu;
  cpu.tier = v1::CPU_RAM;
  cpu.values = {0.25, std::nullopt, 2.5};
  history.series = {gpu, cpu};
  return history;
}

TEST_CASE("otava-csv: a time column, the job attribute, a column per line, exact values") {
  std::ostringstream out;
  std::vector<std::string> left_out = PrintOtavaCsv(TwoLinesThreeRuns(), out);
  CHECK(out.str() ==
        "time,job_id,h200-a.GPU.c16,h200-a.CPU_RAM.c16\n"
        "2026-12-01T02:00:00Z,nightly-1,0.1,0.25\n"
        "2026-12-03T02:00:00Z,nightly-3,0.30000000000000004,2.5\n");
  REQUIRE(left_out.size() == 1);
  CHECK(left_out[0] == "nightly-2 (no value for h200-a.CPU_RAM.c16)");
}

TEST_CASE("otava-csv: a job that was not fanned out names its lines by tier and concurrency") {
  report::HistorySeries series;
  series.tier = v1::NVME;
  series.concurrency = 2;
  CHECK(OtavaColumn(series) == "NVME.c2");
  series.agent_id = "node-7";
  CHECK(OtavaColumn(series) == "node-7.NVME.c2");
}

}  // namespace
}  // namespace kvbench::kvctl
