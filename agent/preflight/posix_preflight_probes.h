#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "agent/preflight/preflight_probes.h"
#include "agent/scenario/program_resolver.h"
#include "common/process/posix_process_launcher.h"

namespace kvbench::agent::preflight {

// The real PreflightProbes (the one composition of the preflight's seams: kv-agent's start and
// --preflight, kvctl doctor): statfs/statvfs, files under /proc, open(2) with O_DIRECT, bind(2),
// NVML through dlopen (telemetry::NvmlGpuTelemetry), amd-smi through the process launcher
// (telemetry::AmdSmiGpuTelemetry), programs resolved as the agent resolves them
// (ProgramResolver: next to the running binary, then PATH) and probed through the launcher
// (release::LauncherProbeRunner). The probes' output files go to a private temporary folder,
// removed with the probes. Thread-safe.
class PosixPreflightProbes : public PreflightProbes {
 public:
  // `bin_dir`: where our own programs are ("" = the running binary's folder). INTERNAL when the
  // scratch folder cannot be made under $TMPDIR (else /tmp).
  static absl::StatusOr<std::unique_ptr<PosixPreflightProbes>> Create(std::string bin_dir = "");
  ~PosixPreflightProbes() override;
  PosixPreflightProbes(const PosixPreflightProbes&) = delete;
  PosixPreflightProbes& operator=(const PosixPreflightProbes&) = delete;

  absl::StatusOr<FileSystemStat> StatFileSystem(const std::string& path) override;
  absl::StatusOr<std::string> ReadFile(const std::string& path) override;
  absl::Status WriteDirect(const std::string& dir, int64_t block_size) override;
  absl::Status BindTcp(const std::string& host, int port) override;
  NvidiaGpus ReadNvidiaGpus() override;
  absl::StatusOr<std::vector<telemetry::GpuReading>> ReadAmdGpus() override;
  std::optional<std::string> GetEnv(const std::string& name) override;
  absl::StatusOr<std::string> ResolveProgram(const std::string& program) override;
  release::ProgramRelease ProbeRelease(const v1::Profile& profile,
                                       const std::string& program) override;

 private:
  PosixPreflightProbes(std::string scratch_dir, std::string bin_dir);

  const std::string scratch_dir_;
  const ProgramResolver programs_;
  PosixProcessLauncher launcher_;
};

}  // namespace kvbench::agent::preflight
