#include "agent/telemetry/amd_smi_gpu_telemetry.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/telemetry/amd_smi_json.h"

namespace kvbench::telemetry {

const char* AmdSmiToolName(AmdSmiTool tool) {
  switch (tool) {
    case AmdSmiTool::kAmdSmi:
      return "amd-smi";
    case AmdSmiTool::kRocmSmi:
      return "rocm-smi";
  }
  return "unknown";
}

absl::StatusOr<std::vector<GpuReading>> RunAmdSmiTool(const CommandRunner& runner,
                                                      AmdSmiTool tool) {
  const bool amd_smi = tool == AmdSmiTool::kAmdSmi;
  absl::StatusOr<std::string> output = runner(amd_smi ? AmdSmiMetricCommand() : RocmSmiCommand());
  if (!output.ok()) return output.status();
  return amd_smi ? ParseAmdSmiMetricJson(*output) : ParseRocmSmiJson(*output);
}

absl::StatusOr<std::unique_ptr<AmdSmiGpuTelemetry>> AmdSmiGpuTelemetry::Open(CommandRunner runner) {
  absl::Status last_error;
  bool any_installed = false;
  for (AmdSmiTool tool : {AmdSmiTool::kAmdSmi, AmdSmiTool::kRocmSmi}) {
    absl::StatusOr<std::vector<GpuReading>> readings = RunAmdSmiTool(runner, tool);
    if (absl::IsNotFound(readings.status())) continue;
    any_installed = true;
    if (!readings.ok()) {
      last_error = readings.status();
    } else if (readings->empty()) {
      last_error =
          absl::FailedPreconditionError(absl::StrCat(AmdSmiToolName(tool), " reports no GPU"));
    } else {
      const int count = static_cast<int>(readings->size());
      return std::unique_ptr<AmdSmiGpuTelemetry>(
          new AmdSmiGpuTelemetry(std::move(runner), tool, count));
    }
  }
  if (!any_installed) return absl::NotFoundError("neither amd-smi nor rocm-smi is on PATH");
  return last_error;
}

AmdSmiGpuTelemetry::AmdSmiGpuTelemetry(CommandRunner runner, AmdSmiTool tool, int device_count)
    : runner_(std::move(runner)), tool_(tool), device_count_(device_count) {}

absl::StatusOr<std::vector<GpuReading>> AmdSmiGpuTelemetry::Read() {
  return RunAmdSmiTool(runner_, tool_);
}

}  // namespace kvbench::telemetry
