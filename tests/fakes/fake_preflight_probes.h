#pragma once

// A PreflightProbes whose world the test sets: by default a healthy node without GPUs (every
// path on ext4 of /dev/nvme0n1p1, O_DIRECT works, every bind works, 16 GiB MemAvailable, every
// program found at /opt/kv/bin/<name> at its component's minimum supported release). Header-only;
// thread-safe (the agent re-runs checks on the preflight monitor's thread).

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/preflight/preflight_probes.h"
#include "agent/release/supported_releases.h"

namespace kvbench::testing {

class FakePreflightProbes : public agent::preflight::PreflightProbes {
 public:
  static constexpr int64_t kExt4 = 0xEF53;
  static constexpr int64_t kTmpfs = 0x01021994;
  static constexpr int64_t kOverlay = 0x794c7630;
  static constexpr int64_t kGib = 1024LL * 1024 * 1024;

  FakePreflightProbes() {
    fs_.type = kExt4;
    fs_.free_bytes = 500 * kGib;
    fs_.total_bytes = 1000 * kGib;
    fs_.block_size = 4096;
    files_["/proc/self/mountinfo"] =
        "22 1 259:1 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p1 rw\n"
        "25 22 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw\n";
    files_["/proc/meminfo"] =
        "MemTotal:       33554432 kB\nMemAvailable:   16777216 kB\nCached:          1048576 kB\n";
    nvidia_.reason =
        "cannot load libnvidia-ml.so.1: libnvidia-ml.so.1: cannot open shared object "
        "file: No such file or directory";
  }

  // --- control
  void SetFileSystem(int64_t type, int64_t free_bytes = 500 * kGib) {
    std::lock_guard<std::mutex> lock(mu_);
    fs_.type = type;
    fs_.free_bytes = free_bytes;
  }
  void SetFile(const std::string& path, std::string content) {
    std::lock_guard<std::mutex> lock(mu_);
    files_[path] = std::move(content);
  }
  void FailDirectWrites(absl::Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    direct_ = std::move(status);
  }
  // BindTcp(host, port) fails as EADDRINUSE would.
  void TakePort(const std::string& host, int port) {
    std::lock_guard<std::mutex> lock(mu_);
    taken_.insert({host, port});
  }
  void SetNvidia(agent::preflight::NvidiaGpus gpus) {
    std::lock_guard<std::mutex> lock(mu_);
    nvidia_ = std::move(gpus);
  }
  void SetAmd(absl::StatusOr<std::vector<telemetry::GpuReading>> gpus) {
    std::lock_guard<std::mutex> lock(mu_);
    amd_ = std::move(gpus);
  }
  void SetEnv(const std::string& name, std::string value) {
    std::lock_guard<std::mutex> lock(mu_);
    env_[name] = std::move(value);
  }
  void MissProgram(const std::string& program) {
    std::lock_guard<std::mutex> lock(mu_);
    missing_.insert(program);
  }
  // The version every probe of `component` ("vllm", "lmcache") reports.
  void SetVersion(const std::string& component, std::string version) {
    std::lock_guard<std::mutex> lock(mu_);
    versions_[component] = std::move(version);
  }
  int release_probes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return release_probes_;
  }
  int statfs_calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return statfs_calls_;
  }

  // --- PreflightProbes
  absl::StatusOr<agent::preflight::FileSystemStat> StatFileSystem(const std::string&) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++statfs_calls_;
    return fs_;
  }
  absl::StatusOr<std::string> ReadFile(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) return absl::NotFoundError(absl::StrCat("cannot read ", path));
    return it->second;
  }
  absl::Status WriteDirect(const std::string&, int64_t) override {
    std::lock_guard<std::mutex> lock(mu_);
    return direct_;
  }
  absl::Status BindTcp(const std::string& host, int port) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (taken_.count({host, port}) > 0) {
      return absl::UnavailableError(absl::StrCat("cannot bind ", host, ":", port,
                                                 ": Address already in use (held by pid 4242 "
                                                 "(kv-agent))"));
    }
    return absl::OkStatus();
  }
  agent::preflight::NvidiaGpus ReadNvidiaGpus() override {
    std::lock_guard<std::mutex> lock(mu_);
    return nvidia_;
  }
  absl::StatusOr<std::vector<telemetry::GpuReading>> ReadAmdGpus() override {
    std::lock_guard<std::mutex> lock(mu_);
    return amd_;
  }
  std::optional<std::string> GetEnv(const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = env_.find(name);
    if (it == env_.end()) return std::nullopt;
    return it->second;
  }
  absl::StatusOr<std::string> ResolveProgram(const std::string& program) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (missing_.count(program) > 0) {
      return absl::NotFoundError(
          absl::StrCat(program, " not found next to /opt/kv/bin or on PATH"));
    }
    return absl::StrCat("/opt/kv/bin/", program);
  }
  agent::release::ProgramRelease ProbeRelease(const v1::Profile& profile,
                                              const std::string& program) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++release_probes_;
    agent::release::ProgramRelease release;
    release.profile = profile.name();
    release.component = profile.role() == v1::ENGINE ? agent::release::kVllmComponent
                                                     : agent::release::kLmcacheComponent;
    release.simulated = profile.simulated();
    release.probe = absl::StrCat(program, " --version");
    auto it = versions_.find(release.component);
    release.version = it != versions_.end() ? it->second : MinimumOf(release.component);
    return release;
  }

 private:
  static std::string MinimumOf(const std::string& component) {
    for (const agent::release::SupportedRelease& supported : agent::release::SupportedReleases()) {
      if (supported.component == component && !supported.minimum_version.empty()) {
        return supported.minimum_version;
      }
    }
    return "1.0.0";
  }

  mutable std::mutex mu_;
  agent::preflight::FileSystemStat fs_;
  std::map<std::string, std::string> files_;
  absl::Status direct_ = absl::OkStatus();
  std::set<std::pair<std::string, int>> taken_;
  agent::preflight::NvidiaGpus nvidia_;
  absl::StatusOr<std::vector<telemetry::GpuReading>> amd_ =
      absl::NotFoundError("neither amd-smi nor rocm-smi on PATH");
  std::map<std::string, std::string> env_;
  std::set<std::string> missing_;
  std::map<std::string, std::string> versions_;
  int release_probes_ = 0;
  int statfs_calls_ = 0;
};

}  // namespace kvbench::testing
