#pragma once

// The world as the preflight sees it (STYLE.md rule 6): file systems, /proc, O_DIRECT, sockets,
// the GPU libraries and tools, the environment and the programs profiles run. The real one is
// PosixPreflightProbes; tests use FakePreflightProbes (tests/fakes/fake_preflight_probes.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/release/program_release.h"
#include "agent/telemetry/gpu_reading.h"
#include "kvbench/v1/profile.pb.h"

namespace kvbench::agent::preflight {

// A file system as statfs(2) and statvfs(3) see it.
struct FileSystemStat {
  int64_t type = 0;         // statfs f_type: the file system's magic (TMPFS_MAGIC, ...)
  int64_t free_bytes = 0;   // for an unprivileged writer: f_bavail x f_frsize
  int64_t total_bytes = 0;  // f_blocks x f_frsize
  int64_t block_size = 0;   // f_bsize: the alignment an O_DIRECT write needs at most
};

// What NVML says about this node's NVIDIA GPUs.
struct NvidiaGpus {
  bool available = false;  // NVML loaded and initialised
  std::string reason;      // why not, when !available ("cannot load libnvidia-ml.so.1: ...")
  std::vector<telemetry::GpuReading> gpus;
  std::string driver_version;  // "" when NVML could not say
  std::string cuda_version;    // the newest CUDA the driver supports, "13.0"
};

class PreflightProbes {
 public:
  virtual ~PreflightProbes() = default;

  // statfs + statvfs of `path` (which exists): the OS error naming the path otherwise.
  virtual absl::StatusOr<FileSystemStat> StatFileSystem(const std::string& path) = 0;
  // A whole small file: /proc/self/mountinfo, /proc/meminfo. NOT_FOUND / the OS error otherwise.
  virtual absl::StatusOr<std::string> ReadFile(const std::string& path) = 0;
  // Creates a temporary file in `dir` with O_DIRECT, writes one block of `block_size` bytes from
  // an aligned buffer, and removes it. The OS error (EINVAL: O_DIRECT unsupported) otherwise.
  virtual absl::Status WriteDirect(const std::string& dir, int64_t block_size) = 0;
  // Binds a TCP socket to host:port (0: any port) and closes it: UNAVAILABLE naming the address
  // and the OS error (EADDRINUSE, EADDRNOTAVAIL) when it cannot.
  virtual absl::Status BindTcp(const std::string& host, int port) = 0;
  virtual NvidiaGpus ReadNvidiaGpus() = 0;
  // amd-smi (else rocm-smi): NOT_FOUND when neither is installed, else what
  // telemetry::AmdSmiGpuTelemetry::Open says.
  virtual absl::StatusOr<std::vector<telemetry::GpuReading>> ReadAmdGpus() = 0;
  // The agent's own environment.
  virtual std::optional<std::string> GetEnv(const std::string& name) = 0;
  // A profile's command[0] as the agent resolves it (ProgramResolver: next to the agent's binary,
  // then PATH): NOT_FOUND saying where it looked.
  virtual absl::StatusOr<std::string> ResolveProgram(const std::string& program) = 0;
  // release::ProbeProgramRelease of `profile` run as `program`.
  virtual release::ProgramRelease ProbeRelease(const v1::Profile& profile,
                                               const std::string& program) = 0;
};

}  // namespace kvbench::agent::preflight
