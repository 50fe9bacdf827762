#include "controller/kvctl/print/table_printer.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/status/exit_code.h"
#include "controller/kvctl/kvctl_command.h"
#include "tests/support/temp_dir.h"

namespace kvbench::kvctl {
namespace {

TEST_CASE("Tables align columns, numbers to the right") {
  TablePrinter table({"SCENARIO", "TIER", "TTFT_MS"});
  table.AddRow({"00-gpu-c2", "GPU", "12.5"});
  table.AddRow({"01-cpu-ram-c2", "CPU_RAM", "7"});
  std::ostringstream out;
  table.Print(out);
  CHECK(out.str() ==
        "SCENARIO       TIER     TTFT_MS\n"
        "00-gpu-c2      GPU         12.5\n"
        "01-cpu-ram-c2  CPU_RAM        7\n");
}

// Runs kvctl's command tree in-process, as main does.
struct KvctlRun {
  int exit_code;
  std::string out;
  std::string err;
};

KvctlRun RunKvctl(std::vector<std::string> args) {
  CLI::App app{"kvctl"};
  app.require_subcommand(1);
  std::ostringstream out, err;
  KvctlContext context;
  context.out = &out;
  context.err = &err;
  AddAllCommands(&app, &context);
  std::vector<const char*> argv = {"kvctl"};
  for (const auto& arg : args) argv.push_back(arg.c_str());
  std::reverse(argv.begin() + 1, argv.end());  // CLI11's vector form takes arguments reversed
  std::vector<std::string> reversed(argv.begin() + 1, argv.end());
  app.parse(reversed);
  absl::Status status = context.action();
  if (!status.ok()) err << status.message();
  return {ExitCodeForStatus(status), out.str(), err.str()};
}

TEST_CASE("kvctl plan prints every scenario of a valid spec") {
  testing::TempDir dir;
  std::string spec = dir.WriteFile("s.json", R"({"name": "t", "model": "m", "build": "AMD",
      "engine": "vllm", "tiers": ["NVME", "GPU"], "dataset": {"code": "sammshen"},
      "num_rounds": 2, "concurrency": [16, 4]})");
  KvctlRun table = RunKvctl({"plan", spec});
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("job t: 4 scenarios (2 tiers x 2 concurrency values)") == 0);
  CHECK(table.out.find("00-gpu-c4    GPU") != std::string::npos);
  CHECK(table.out.find("03-nvme-c16  NVME") != std::string::npos);

  KvctlRun json = RunKvctl({"plan", spec, "--output", "json"});
  REQUIRE(json.exit_code == 0);
  auto parsed = nlohmann::json::parse(json.out);
  CHECK(parsed["scenarios"].size() == 4);
  CHECK(parsed["scenarios"][1]["scenario_id"] == "01-nvme-c4");
  CHECK(parsed["spec"]["replicas"] == 1);  // defaults are shown
  CHECK(parsed["spec"]["sampling"]["period_s"] == 15);
}

TEST_CASE("kvctl plan on a bad spec exits 2 and names every bad field") {
  testing::TempDir dir;
  std::string spec = dir.WriteFile("bad.json", R"({"name": "t", "model": "m", "build": "AMD",
      "engine": "vllm", "tiers": [], "dataset": {"code": "sammshen"}, "num_rounds": 0,
      "concurrency": [0]})");
  KvctlRun run = RunKvctl({"plan", spec});
  CHECK(run.exit_code == 2);
  CHECK(run.out.empty());
  CHECK(run.err.find("3 problems") != std::string::npos);
  CHECK(run.err.find("tiers:") != std::string::npos);
  CHECK(run.err.find("num_rounds:") != std::string::npos);
  CHECK(run.err.find("concurrency[0]:") != std::string::npos);

  KvctlRun missing = RunKvctl({"plan", dir.File("absent.json")});
  CHECK(missing.exit_code == 3);
}

}  // namespace
}  // namespace kvbench::kvctl
