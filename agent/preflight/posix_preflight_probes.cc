#include "agent/preflight/posix_preflight_probes.h"

#include <fcntl.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "agent/release/launcher_probe_runner.h"
#include "agent/telemetry/amd_smi_gpu_telemetry.h"
#include "agent/telemetry/launcher_command_runner.h"
#include "agent/telemetry/nvml_gpu_telemetry.h"
#include "common/net/port_holder.h"

namespace kvbench::agent::preflight {
namespace {

std::atomic<uint64_t> next_direct_file{0};

absl::Status OsError(const std::string& what, int error) {
  return absl::UnavailableError(absl::StrCat(what, ": ", std::strerror(error)));
}

// A buffer aligned for O_DIRECT, freed on scope exit.
struct AlignedBuffer {
  explicit AlignedBuffer(size_t size) {
    if (::posix_memalign(&data, static_cast<size_t>(::sysconf(_SC_PAGESIZE)), size) != 0) {
      data = nullptr;
    }
    if (data != nullptr) std::memset(data, 0x6b, size);
  }
  ~AlignedBuffer() { std::free(data); }
  void* data = nullptr;
};

}  // namespace

absl::StatusOr<std::unique_ptr<PosixPreflightProbes>> PosixPreflightProbes::Create(
    std::string bin_dir) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/kvbench-preflight-XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot make a scratch folder ", pattern, ": ", std::strerror(errno)));
  }
  if (bin_dir.empty()) bin_dir = ProgramResolver::SelfBinDir();
  return std::unique_ptr<PosixPreflightProbes>(
      new PosixPreflightProbes(std::move(pattern), std::move(bin_dir)));
}

PosixPreflightProbes::PosixPreflightProbes(std::string scratch_dir, std::string bin_dir)
    : scratch_dir_(std::move(scratch_dir)), programs_(std::move(bin_dir)) {}

PosixPreflightProbes::~PosixPreflightProbes() {
  std::error_code error;
  std::filesystem::remove_all(scratch_dir_, error);
}

absl::StatusOr<FileSystemStat> PosixPreflightProbes::StatFileSystem(const std::string& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return OsError(absl::StrCat("statfs ", path), errno);
  struct statvfs vfs {};
  if (::statvfs(path.c_str(), &vfs) != 0) return OsError(absl::StrCat("statvfs ", path), errno);
  FileSystemStat stat;
  stat.type = static_cast<int64_t>(fs.f_type);
  stat.free_bytes = static_cast<int64_t>(vfs.f_bavail) * static_cast<int64_t>(vfs.f_frsize);
  stat.total_bytes = static_cast<int64_t>(vfs.f_blocks) * static_cast<int64_t>(vfs.f_frsize);
  stat.block_size = static_cast<int64_t>(fs.f_bsize);
  return stat;
}

absl::StatusOr<std::string> PosixPreflightProbes::ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::Status PosixPreflightProbes::WriteDirect(const std::string& dir, int64_t block_size) {
  const std::string path =
      absl::StrCat(dir, "/.kvbench-preflight-", ::getpid(), "-", next_direct_file++);
  const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int error = errno;
    if (error == EINVAL) {
      return absl::FailedPreconditionError(
          absl::StrCat("open(O_DIRECT) ", path, ": the file system does not support O_DIRECT"));
    }
    return OsError(absl::StrCat("open(O_DIRECT) ", path), error);
  }
  AlignedBuffer buffer(static_cast<size_t>(block_size));
  absl::Status result = absl::OkStatus();
  if (buffer.data == nullptr) {
    result = absl::ResourceExhaustedError("cannot allocate an aligned buffer");
  } else if (::write(fd, buffer.data, static_cast<size_t>(block_size)) != block_size) {
    result = OsError(absl::StrCat("write(O_DIRECT) ", path), errno);
  }
  ::close(fd);
  ::unlink(path.c_str());
  return result;
}

absl::Status PosixPreflightProbes::BindTcp(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string address = absl::StrCat(host, ":", port);
  const std::string service = std::to_string(port);
  if (int error = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); error != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot resolve ", address, ": ", ::gai_strerror(error)));
  }
  absl::Status result = absl::OkStatus();
  const int fd = ::socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    result = OsError("socket", errno);
  } else {
    const int on = 1;  // as servers bind: a port in TIME_WAIT is free
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    if (::bind(fd, found->ai_addr, found->ai_addrlen) != 0) {
      const int error = errno;
      std::string holder = port > 0 && error == EADDRINUSE ? DescribeTcpListener(port) : "";
      result = absl::UnavailableError(
          absl::StrCat("cannot bind ", address, ": ", std::strerror(error),
                       holder.empty() ? "" : " (held by ", holder, holder.empty() ? "" : ")"));
    }
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return result;
}

NvidiaGpus PosixPreflightProbes::ReadNvidiaGpus() {
  NvidiaGpus gpus;
  std::unique_ptr<telemetry::NvmlGpuTelemetry> nvml =
      telemetry::NvmlGpuTelemetry::Open(&gpus.reason);
  if (nvml == nullptr) return gpus;
  gpus.available = true;
  gpus.gpus = nvml->Read();
  gpus.driver_version = nvml->driver_version();
  gpus.cuda_version = nvml->cuda_driver_version();
  return gpus;
}

absl::StatusOr<std::vector<telemetry::GpuReading>> PosixPreflightProbes::ReadAmdGpus() {
  absl::StatusOr<std::unique_ptr<telemetry::AmdSmiGpuTelemetry>> amd =
      telemetry::AmdSmiGpuTelemetry::Open(
          telemetry::LauncherCommandRunner(&launcher_, scratch_dir_));
  if (!amd.ok()) return amd.status();
  return (*amd)->Read();
}

std::optional<std::string> PosixPreflightProbes::GetEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

absl::StatusOr<std::string> PosixPreflightProbes::ResolveProgram(const std::string& program) {
  return programs_.Resolve(program);
}

release::ProgramRelease PosixPreflightProbes::ProbeRelease(const v1::Profile& profile,
                                                           const std::string& program) {
  return release::ProbeProgramRelease(profile, program,
                                      release::LauncherProbeRunner(&launcher_, scratch_dir_));
}

}  // namespace kvbench::agent::preflight
