#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/telemetry/command_runner.h"
#include "agent/telemetry/gpu_reading.h"

namespace kvbench::telemetry {

// Which AMD tool a session reads.
enum class AmdSmiTool {
  kAmdSmi,   // amd-smi metric (ROCm 6+)
  kRocmSmi,  // rocm-smi (deprecated by AMD in favour of amd-smi; still on older installs)
};
const char* AmdSmiToolName(AmdSmiTool tool);  // "amd-smi", "rocm-smi"

// AMD GPU telemetry by running amd-smi (else rocm-smi) through a CommandRunner and parsing its
// JSON (amd_smi_json.h; formats from AMD's docs, unverified on hardware here). Each Read() runs
// the tool once, which takes a noticeable fraction of a second: call it off the event loop, at
// the sampling period. Not thread-safe beyond what `runner` is.
class AmdSmiGpuTelemetry {
 public:
  // Runs amd-smi, then rocm-smi when amd-smi is not installed or its output is unusable, and
  // keeps the first that reports at least one GPU. NOT_FOUND when neither tool is on PATH;
  // otherwise the last attempt's error (FAILED_PRECONDITION when a tool reports no GPU). Any error
  // means "AMD GPU telemetry unavailable" to the caller, not a failure of the run.
  static absl::StatusOr<std::unique_ptr<AmdSmiGpuTelemetry>> Open(CommandRunner runner);

  AmdSmiTool tool() const { return tool_; }
  // The GPUs the tool reported at Open().
  int device_count() const { return device_count_; }

  // One reading per GPU the tool reports now. Errors of the runner, or INVALID_ARGUMENT when the
  // output does not parse; a field the tool does not report is nullopt (see GpuReading::errors).
  absl::StatusOr<std::vector<GpuReading>> Read();

 private:
  AmdSmiGpuTelemetry(CommandRunner runner, AmdSmiTool tool, int device_count);

  CommandRunner runner_;
  const AmdSmiTool tool_;
  const int device_count_;
};

// Runs `tool`'s command through `runner` and parses its output.
absl::StatusOr<std::vector<GpuReading>> RunAmdSmiTool(const CommandRunner& runner, AmdSmiTool tool);

}  // namespace kvbench::telemetry
