// ParseAmdSmiMetricJson / ParseRocmSmiJson: a table of realistic outputs. The samples follow the
// shapes in AMD's amd-smi and rocm-smi documentation and public examples (ROCm 5.7-7.x); they
// are NOT captured from hardware here, so they pin what the parsers accept, not what the tools
// print on every version.

#include "agent/telemetry/amd_smi_json.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace kvbench::telemetry {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// clang-format off
// amd-smi metric --power --usage --mem-usage --json, ROCm 6.2, MI300X: a bare list, values as
// {"value", "unit"}, unsupported ones "N/A".
constexpr char kAmdSmi62[] = R"json([
    {
        "gpu": 0,
        "usage": {
            "gfx_activity": {"value": 37, "unit": "%"},
            "umc_activity": {"value": 12, "unit": "%"},
            "mm_activity": "N/A",
            "vcn_activity": [{"value": 0, "unit": "%"}, "N/A", "N/A", "N/A"]
        },
        "power": {
            "socket_power": {"value": 139, "unit": "W"},
            "gfx_voltage": "N/A",
            "soc_voltage": "N/A",
            "mem_voltage": "N/A",
            "throttle_status": "UNTHROTTLED",
            "power_management": "ENABLED"
        },
        "mem_usage": {
            "total_vram": {"value": 196592, "unit": "MB"},
            "used_vram": {"value": 283, "unit": "MB"},
            "free_vram": {"value": 196309, "unit": "MB"},
            "total_visible_vram": {"value": 196592, "unit": "MB"},
            "used_visible_vram": {"value": 283, "unit": "MB"},
            "free_visible_vram": {"value": 196309, "unit": "MB"},
            "total_gtt": {"value": 128716, "unit": "MB"},
            "used_gtt": {"value": 19, "unit": "MB"},
            "free_gtt": {"value": 128697, "unit": "MB"}
        }
    },
    {
        "gpu": 1,
        "usage": {"gfx_activity": {"value": 100, "unit": "%"},
                  "umc_activity": {"value": 64, "unit": "%"}},
        "power": {"socket_power": {"value": 742, "unit": "W"}, "power_management": "ENABLED"},
        "mem_usage": {"total_vram": {"value": 196592, "unit": "MB"},
                      "used_vram": {"value": 180224, "unit": "MB"}}
    }
])json";

// The same command, ROCm 6.4+/7.x: wrapped in {"gpu_data": [...]}; GPU 1 is a VF whose power
// is "N/A"; a warning printed before the document.
constexpr char kAmdSmi7Wrapped[] =
    R"json(WARNING: User is missing the following required groups: render, video.
{
    "gpu_data": [
        {
            "gpu": 0,
            "power": {"socket_power": {"value": 210, "unit": "W"},
                      "gfx_voltage": {"value": 800, "unit": "mV"}},
            "usage": {"gfx_activity": {"value": 5, "unit": "%"}},
            "mem_usage": {"total_vram": {"value": 262128, "unit": "MB"},
                          "used_vram": {"value": 1024, "unit": "MB"}}
        },
        {
            "gpu": 1,
            "power": {"socket_power": "N/A"},
            "usage": {"gfx_activity": {"value": 0, "unit": "%"}},
            "mem_usage": {"total_vram": {"value": 262128, "unit": "MB"},
                          "used_vram": {"value": 0, "unit": "MB"}}
        }
    ]
})json";

// Tolerated variants: bare numbers (default units W, %, MB), numeric strings, other units,
// average_socket_power (Navi, MI200), the name when the output carries "asic".
constexpr char kAmdSmiVariants[] = R"json([
    {"gpu": 3, "asic": {"market_name": "AMD Instinct MI210"},
     "power": {"average_socket_power": 41}, "usage": {"gfx_activity": "12"},
     "mem_usage": {"total_vram": 65520, "used_vram": {"value": "2", "unit": "GB"}}},
    {"power": {"socket_power": {"value": 55000, "unit": "mW"}},
     "mem_usage": {"total_vram": {"value": 1073741824, "unit": "B"},
                   "used_vram": {"value": 1, "unit": "XB"}}}
])json";

// rocm-smi --showpower --showuse --showmeminfo vram --json, ROCm 5.7, two MI210: one line.
constexpr char kRocmSmi57[] =
    R"json({"card0": {"Average Graphics Package Power (W)": "41.0", "GPU use (%)": "0", )json"
    R"json("VRAM Total Memory (B)": "68702699520", "VRAM Total Used Memory (B)": "10960896"}, )json"
    R"json("card1": {"Average Graphics Package Power (W)": "298.0", "GPU use (%)": "99", )json"
    R"json("VRAM Total Memory (B)": "68702699520", )json"
    R"json("VRAM Total Used Memory (B)": "61203496960"}})json";

// ROCm 6.1 on MI300X: "Current Socket ..." power, cards sorted by number (card10 after card2),
// a "system" key, the name when --showproductname was added, a card without power.
constexpr char kRocmSmi61[] = R"json({
  "card10": {"Current Socket Graphics Package Power (W)": "702.0", "GPU use (%)": "100",
             "VRAM Total Memory (B)": "206141652992",
             "VRAM Total Used Memory (B)": "191260934144"},
  "card2": {"Card Series": "AMD Instinct MI300X",
            "Current Socket Graphics Package Power (W)": "139.0", "GPU use (%)": "0",
            "VRAM Total Memory (B)": "206141652992", "VRAM Total Used Memory (B)": "297213952"},
  "card3": {"GPU use (%)": "N/A", "VRAM Total Memory (B)": "206141652992",
            "VRAM Total Used Memory (B)": "297213952"},
  "system": {"Driver version": "6.7.0"}
})json";
// clang-format on

enum class Tool { kAmdSmi, kRocmSmi };

struct Expected {
  int index;
  std::string name;
  std::optional<double> power_w;
  std::optional<double> utilization_pct;
  std::optional<int64_t> memory_used_bytes;
  std::optional<int64_t> memory_total_bytes;
  std::vector<std::string> errors;
};

struct Case {
  const char* name;
  Tool tool;
  std::string text;
  absl::StatusCode code;
  std::vector<Expected> gpus;
};

TEST_CASE("AMD JSON parsers: realistic outputs table") {
  const Case cases[] = {
      {"amd-smi ROCm 6.2, bare list",
       Tool::kAmdSmi,
       kAmdSmi62,
       absl::StatusCode::kOk,
       {{0, "", 139.0, 37.0, 283 * kMiB, 196592 * kMiB, {}},
        {1, "", 742.0, 100.0, 180224 * kMiB, 196592 * kMiB, {}}}},
      {"amd-smi ROCm 6.4+/7, gpu_data wrapper, warning first, N/A power",
       Tool::kAmdSmi,
       kAmdSmi7Wrapped,
       absl::StatusCode::kOk,
       {{0, "", 210.0, 5.0, 1024 * kMiB, 262128 * kMiB, {}},
        {1, "", std::nullopt, 0.0, 0, 262128 * kMiB, {"power: socket_power is \"N/A\""}}}},
      {"amd-smi tolerated variants",
       Tool::kAmdSmi,
       kAmdSmiVariants,
       absl::StatusCode::kOk,
       {{3, "AMD Instinct MI210", 41.0, 12.0, 2048 * kMiB, 65520 * kMiB, {}},
        {1,
         "",
         55.0,
         std::nullopt,
         std::nullopt,
         1024 * kMiB,
         {"utilization: no gfx_activity in the output",
          "memory used: unknown unit \"XB\" of used_vram"}}}},
      {"amd-smi: no GPUs", Tool::kAmdSmi, "[]", absl::StatusCode::kOk, {}},
      {"amd-smi: not JSON",
       Tool::kAmdSmi,
       "amd-smi: command failed\n",
       absl::StatusCode::kInvalidArgument,
       {}},
      {"amd-smi: truncated",
       Tool::kAmdSmi,
       R"([{"gpu": 0, "power": {)",
       absl::StatusCode::kInvalidArgument,
       {}},
      {"amd-smi: object without gpu_data",
       Tool::kAmdSmi,
       R"({"error": "no devices"})",
       absl::StatusCode::kInvalidArgument,
       {}},
      {"amd-smi: entry not an object",
       Tool::kAmdSmi,
       "[1, 2]",
       absl::StatusCode::kInvalidArgument,
       {}},
      {"rocm-smi ROCm 5.7",
       Tool::kRocmSmi,
       kRocmSmi57,
       absl::StatusCode::kOk,
       {{0, "", 41.0, 0.0, 10960896, 68702699520, {}},
        {1, "", 298.0, 99.0, 61203496960, 68702699520, {}}}},
      {"rocm-smi ROCm 6.1 MI300X",
       Tool::kRocmSmi,
       kRocmSmi61,
       absl::StatusCode::kOk,
       {{2, "AMD Instinct MI300X", 139.0, 0.0, 297213952, 206141652992, {}},
        {3,
         "",
         std::nullopt,
         std::nullopt,
         297213952,
         206141652992,
         {"power: no Average Graphics Package Power (W) in the output",
          "utilization: GPU use (%) is \"N/A\""}},
        {10, "", 702.0, 100.0, 191260934144, 206141652992, {}}}},
      {"rocm-smi: a list", Tool::kRocmSmi, "[]", absl::StatusCode::kInvalidArgument, {}},
      {"rocm-smi: card not an object",
       Tool::kRocmSmi,
       R"({"card0": "N/A"})",
       absl::StatusCode::kInvalidArgument,
       {}},
      {"rocm-smi: not JSON",
       Tool::kRocmSmi,
       "ERROR: GPU[0] : Unable to read power",
       absl::StatusCode::kInvalidArgument,
       {}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    absl::StatusOr<std::vector<GpuReading>> readings =
        c.tool == Tool::kAmdSmi ? ParseAmdSmiMetricJson(c.text) : ParseRocmSmiJson(c.text);
    INFO(readings.status().ToString());
    REQUIRE(readings.status().code() == c.code);
    if (!readings.ok()) continue;
    REQUIRE(readings->size() == c.gpus.size());
    for (size_t i = 0; i < c.gpus.size(); ++i) {
      const GpuReading& got = (*readings)[i];
      const Expected& want = c.gpus[i];
      INFO("gpu #" << i);
      CHECK(got.index == want.index);
      CHECK(got.name == want.name);
      CHECK(got.power_w == want.power_w);
      CHECK(got.utilization_pct == want.utilization_pct);
      CHECK(got.memory_used_bytes == want.memory_used_bytes);
      CHECK(got.memory_total_bytes == want.memory_total_bytes);
      CHECK(got.errors == want.errors);
    }
  }
}

TEST_CASE("the commands whose output is parsed") {
  CHECK(AmdSmiMetricCommand() == std::vector<std::string>{"amd-smi", "metric", "--power", "--usage",
                                                          "--mem-usage", "--json"});
  CHECK(RocmSmiCommand() == std::vector<std::string>{"rocm-smi", "--showpower", "--showuse",
                                                     "--showmeminfo", "vram", "--json"});
}

}  // namespace
}  // namespace kvbench::telemetry
