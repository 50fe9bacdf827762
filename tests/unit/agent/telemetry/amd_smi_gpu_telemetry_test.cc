// AmdSmiGpuTelemetry: which tool it settles on, driven by a scripted CommandRunner.

#include "agent/telemetry/amd_smi_gpu_telemetry.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "agent/telemetry/amd_smi_json.h"

namespace kvbench::telemetry {
namespace {

// clang-format off
constexpr char kAmdSmiOneGpu[] = R"json([{"gpu": 0,
    "power": {"socket_power": {"value": 139, "unit": "W"}},
    "usage": {"gfx_activity": {"value": 3, "unit": "%"}},
    "mem_usage": {"total_vram": {"value": 196592, "unit": "MB"},
                  "used_vram": {"value": 283, "unit": "MB"}}}])json";
constexpr char kRocmSmiTwoGpus[] = R"json({
    "card0": {"Average Graphics Package Power (W)": "41.0", "GPU use (%)": "0"},
    "card1": {"Average Graphics Package Power (W)": "45.0", "GPU use (%)": "2"}})json";
// clang-format on

// Answers each program (argv[0]) with a scripted result; a program without one is NOT_FOUND,
// as for a tool not on PATH. Records every command.
class ScriptedRunner {
 public:
  void Answer(const std::string& program, absl::StatusOr<std::string> result) {
    results_->insert_or_assign(program, std::move(result));
  }
  CommandRunner runner() const {
    return [results = results_, calls = calls_](const std::vector<std::string>& argv) {
      calls->push_back(argv);
      auto it = results->find(argv.at(0));
      if (it == results->end()) return absl::StatusOr<std::string>(absl::NotFoundError(argv[0]));
      return it->second;
    };
  }
  const std::vector<std::vector<std::string>>& calls() const { return *calls_; }

 private:
  std::shared_ptr<std::map<std::string, absl::StatusOr<std::string>>> results_ =
      std::make_shared<std::map<std::string, absl::StatusOr<std::string>>>();
  std::shared_ptr<std::vector<std::vector<std::string>>> calls_ =
      std::make_shared<std::vector<std::vector<std::string>>>();
};

TEST_CASE("neither tool installed: NOT_FOUND saying so") {
  ScriptedRunner script;
  absl::StatusOr<std::unique_ptr<AmdSmiGpuTelemetry>> amd =
      AmdSmiGpuTelemetry::Open(script.runner());
  CHECK(absl::IsNotFound(amd.status()));
  CHECK(amd.status().message() == "neither amd-smi nor rocm-smi is on PATH");
  CHECK(script.calls().size() == 2);
}

TEST_CASE("amd-smi installed and reporting a GPU: used, and Read() runs it again") {
  ScriptedRunner script;
  script.Answer("amd-smi", std::string(kAmdSmiOneGpu));
  script.Answer("rocm-smi", std::string(kRocmSmiTwoGpus));
  absl::StatusOr<std::unique_ptr<AmdSmiGpuTelemetry>> amd =
      AmdSmiGpuTelemetry::Open(script.runner());
  REQUIRE(amd.ok());
  CHECK((*amd)->tool() == AmdSmiTool::kAmdSmi);
  CHECK((*amd)->device_count() == 1);
  CHECK(script.calls().size() == 1);

  absl::StatusOr<std::vector<GpuReading>> readings = (*amd)->Read();
  REQUIRE(readings.ok());
  REQUIRE(readings->size() == 1);
  CHECK((*readings)[0].power_w == 139.0);
  CHECK(script.calls().size() == 2);
  CHECK(script.calls().back() == AmdSmiMetricCommand());

  script.Answer("amd-smi", absl::UnavailableError("amd-smi exited with code 1"));
  CHECK(absl::IsUnavailable((*amd)->Read().status()));
}

TEST_CASE("amd-smi missing or unusable: falls back to rocm-smi") {
  ScriptedRunner script;
  script.Answer("rocm-smi", std::string(kRocmSmiTwoGpus));
  SECTION("amd-smi not installed") {}
  SECTION("amd-smi prints no JSON") { script.Answer("amd-smi", std::string("Segmentation fault")); }
  SECTION("amd-smi fails") { script.Answer("amd-smi", absl::UnavailableError("exit 2")); }
  SECTION("amd-smi sees no GPU") { script.Answer("amd-smi", std::string("[]")); }
  absl::StatusOr<std::unique_ptr<AmdSmiGpuTelemetry>> amd =
      AmdSmiGpuTelemetry::Open(script.runner());
  REQUIRE(amd.ok());
  CHECK((*amd)->tool() == AmdSmiTool::kRocmSmi);
  CHECK(AmdSmiToolName((*amd)->tool()) == std::string("rocm-smi"));
  CHECK((*amd)->device_count() == 2);
  CHECK(script.calls().back() == RocmSmiCommand());
}

TEST_CASE("installed but unusable: the last tool's error") {
  ScriptedRunner script;
  script.Answer("amd-smi", std::string("[]"));
  SECTION("no GPU anywhere") {
    absl::StatusOr<std::unique_ptr<AmdSmiGpuTelemetry>> amd =
        AmdSmiGpuTelemetry::Open(script.runner());
    CHECK(absl::IsFailedPrecondition(amd.status()));
    CHECK(amd.status().message() == "amd-smi reports no GPU");
  }
  SECTION("rocm-smi output broken") {
    script.Answer("rocm-smi", std::string("ERROR: no AMD GPU"));
    absl::StatusOr<std::unique_ptr<AmdSmiGpuTelemetry>> amd =
        AmdSmiGpuTelemetry::Open(script.runner());
    CHECK(absl::IsInvalidArgument(amd.status()));
  }
}

}  // namespace
}  // namespace kvbench::telemetry
