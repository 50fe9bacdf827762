#include "agent/preflight/nvme_checks.h"

#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "agent/preflight/mount_table.h"
#include "agent/preflight/preflight_check.h"

namespace kvbench::agent::preflight {
namespace {

constexpr char kDir[] = "nvme.dir";
constexpr char kBlockDevice[] = "nvme.block_device";
constexpr char kDirect[] = "nvme.o_direct";
constexpr char kFreeSpace[] = "nvme.free_space";
constexpr char kPageCache[] = "nvme.page_cache";
constexpr char kMountInfo[] = "/proc/self/mountinfo";
constexpr char kMemInfo[] = "/proc/meminfo";

constexpr char kBlockDeviceRemedy[] =
    "set nvme_cache_dir to a folder on a local NVMe block device's file system (ext4, xfs), "
    "e.g. /mnt/nvme/kvbench";

// What the nvme.* checks share.
struct NvmeDir {
  std::string configured;  // nvme_cache_dir as configured
  std::string shown;       // "<configured>" or "<configured> (-> <real>)"
  std::string real;        // the dir's real path, or its nearest existing parent's
  bool exists = false;
  bool usable = false;  // nvme.dir passed
  std::optional<FileSystemStat> fs;
};

std::string Gib(int64_t bytes) { return absl::StrFormat("%.1f GiB", bytes / kBytesPerGib); }

// The profiles that serve NVME; `simulated` picks the simulators or the real cache servers.
std::vector<std::string> NvmeProfiles(const tiers::ProfileSet& profiles, bool simulated) {
  std::vector<std::string> names;
  for (const std::string& name : profiles.names()) {
    const v1::Profile& profile = **profiles.Find(name);
    if (profile.role() != v1::CACHE_SERVER || profile.simulated() != simulated) continue;
    for (int tier : profile.tiers()) {
      if (tier == v1::NVME) names.push_back(name);
    }
  }
  return names;
}

v1::PreflightCheck CheckDir(NvmeDir* dir) {
  std::error_code error;
  std::filesystem::path existing = dir->configured;
  while (!std::filesystem::exists(existing, error) && existing.has_parent_path() &&
         existing != existing.parent_path()) {
    existing = existing.parent_path();
  }
  dir->exists = existing == std::filesystem::path(dir->configured);
  dir->real = std::filesystem::canonical(existing, error).string();
  if (error) dir->real = existing.string();
  dir->shown = dir->configured;
  if (dir->exists && dir->real != dir->configured) {
    absl::StrAppend(&dir->shown, " (-> ", dir->real, ")");
  }
  const std::string remedy =
      absl::StrCat("make it a folder the agent's user (uid ", ::getuid(),
                   ") can write, or set nvme_cache_dir to one on an NVMe file system");
  if (!std::filesystem::is_directory(existing, error)) {
    return Fail(
        kDir,
        absl::StrCat("nvme_cache_dir ", dir->shown, ": ", existing.string(), " is not a folder"),
        remedy, {v1::NVME});
  }
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    return Fail(kDir,
                absl::StrCat("nvme_cache_dir ", dir->shown, ": ", existing.string(),
                             " is not writable by uid ", ::getuid()),
                remedy, {v1::NVME});
  }
  dir->usable = true;
  if (!dir->exists) {
    return Ok(kDir,
              absl::StrCat("nvme_cache_dir ", dir->configured,
                           " does not exist yet; it is created under ", dir->real, " (writable)"));
  }
  return Ok(kDir, absl::StrCat("nvme_cache_dir ", dir->shown, " is a writable folder"));
}

v1::PreflightCheck CheckBlockDevice(const NvmeDir& dir, PreflightProbes& probes) {
  const std::string where = absl::StrCat("nvme_cache_dir ", dir.shown);
  const FileSystemStat& fs = *dir.fs;
  const std::string type = FileSystemName(fs.type);
  if (IsMemoryOrOverlay(fs.type)) {
    const bool overlay = type == "overlay" || type == "aufs";
    return Fail(
        kBlockDevice,
        absl::StrCat(where, " is on ", type, overlay ? " (a container's writable layer)" : " (RAM)",
                     ", not on a block device: the NVME tier would measure RAM"),
        overlay ? absl::StrCat(kBlockDeviceRemedy,
                               " (in a container: bind-mount an NVMe folder into it)")
                : kBlockDeviceRemedy,
        {v1::NVME});
  }
  if (IsRemoteOrFuse(fs.type)) {
    return Fail(kBlockDevice,
                absl::StrCat(where, " is on ", type,
                             ", a network or FUSE file system, not a "
                             "local disk"),
                kBlockDeviceRemedy, {v1::NVME});
  }
  absl::StatusOr<std::string> mountinfo = probes.ReadFile(kMountInfo);
  std::optional<MountEntry> mount = mountinfo.ok() ? FindMount(*mountinfo, dir.real) : std::nullopt;
  if (!mount.has_value()) {
    return Warn(
        kBlockDevice,
        absl::StrCat(where, " is on ", type, "; its device is unknown (", kMountInfo,
                     mountinfo.ok() ? " has no mount for it)"
                                    : absl::StrCat(": ", mountinfo.status().message(), ")")),
        "check with df that it is on an NVMe device");
  }
  const std::string device = DeviceName(mount->source);
  const std::string on = absl::StrCat(where, " is on ", mount->source, " (", mount->fs_type,
                                      " mounted at ", mount->mount_point, ")");
  if (device.empty()) {
    return Warn(kBlockDevice, absl::StrCat(on, ": no block device behind it"), kBlockDeviceRemedy);
  }
  if (device.rfind("nvme", 0) == 0) return Ok(kBlockDevice, absl::StrCat(on, ", an NVMe device"));
  if (device.rfind("dm-", 0) == 0 || device.rfind("md", 0) == 0 ||
      mount->source.rfind("/dev/mapper/", 0) == 0) {
    return Ok(kBlockDevice, absl::StrCat(on, ", a mapped device (check that it sits on NVMe)"));
  }
  return Warn(kBlockDevice,
              absl::StrCat(on, ", not an NVMe device: the NVME tier would measure this disk"),
              "for NVMe figures, set nvme_cache_dir to a folder on an NVMe device");
}

v1::PreflightCheck CheckDirect(const NvmeDir& dir, PreflightProbes& probes) {
  const int64_t block = std::max<int64_t>(kDirectWriteBytes, dir.fs->block_size);
  const absl::Status written = probes.WriteDirect(dir.real, block);
  if (written.ok()) {
    return Ok(kDirect,
              absl::StrCat("an O_DIRECT write of ", block, " bytes in ", dir.real, " works"));
  }
  return Fail(kDirect,
              absl::StrCat("an O_DIRECT write of ", block, " bytes in ", dir.real,
                           " failed: ", written.message()),
              "put nvme_cache_dir on a local file system that supports O_DIRECT (ext4, xfs): "
              "LMCache's fs adapter needs it (use_odirect) to read the disk, not the page cache",
              {v1::NVME});
}

int64_t PoolBytes(const std::optional<v1::JobSpec>& spec) {
  const double gb =
      spec.has_value() && spec->has_nvme_pool_gb() ? spec->nvme_pool_gb() : kDefaultNvmePoolGb;
  return static_cast<int64_t>(gb * kBytesPerGib);
}

// "the job's pool of 64.0 GiB (nvme_pool_gb 64)", "a pool of 64.0 GiB (the default nvme_pool_gb)".
std::string PoolText(const std::optional<v1::JobSpec>& spec) {
  const std::string size = Gib(PoolBytes(spec));
  if (spec.has_value() && spec->has_nvme_pool_gb()) {
    return absl::StrCat("the job's pool of ", size, " (nvme_pool_gb ", spec->nvme_pool_gb(), ")");
  }
  return absl::StrCat("a pool of ", size, " (the default nvme_pool_gb)");
}

v1::PreflightCheck CheckFreeSpace(const NvmeDir& dir, const tiers::ProfileSet& profiles,
                                  const std::optional<v1::JobSpec>& spec) {
  const std::vector<std::string> real = NvmeProfiles(profiles, /*simulated=*/false);
  const int64_t free = dir.fs->free_bytes;
  const std::string found = absl::StrCat(Gib(free), " free under ", dir.real);
  if (real.empty()) {
    return Ok(kFreeSpace, absl::StrCat(found, "; the simulator writes 1/1000 of its pool's bytes"));
  }
  const int64_t pool = PoolBytes(spec);
  if (free >= pool) return Ok(kFreeSpace, absl::StrCat(found, "; ", PoolText(spec), " fits"));
  const std::string detail = absl::StrCat("only ", found, "; ", PoolText(spec), " does not fit");
  if (!spec.has_value()) {
    return Warn(kFreeSpace, detail,
                "free space there, or give jobs a smaller nvme_pool_gb (the controller places "
                "NVME scenarios by the free space each heartbeat reports)");
  }
  return Fail(kFreeSpace, detail, "free space there, or lower the job's nvme_pool_gb", {v1::NVME},
              real);
}

// A /proc/meminfo field in bytes, nullopt when absent.
std::optional<int64_t> MemInfoBytes(const std::string& meminfo, const std::string& key) {
  std::istringstream lines(meminfo);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string name;
    int64_t kib = 0;
    if (fields >> name >> kib && name == key + ":") return kib * 1024;
  }
  return std::nullopt;
}

v1::PreflightCheck CheckPageCache(const tiers::ProfileSet& profiles,
                                  const std::optional<v1::JobSpec>& spec, PreflightProbes& probes) {
  if (NvmeProfiles(profiles, /*simulated=*/false).empty()) {
    return Skip(kPageCache,
                "only simulated NVME pools here (their scaled files are read from the "
                "page cache by design)");
  }
  absl::StatusOr<std::string> meminfo = probes.ReadFile(kMemInfo);
  const std::optional<int64_t> available =
      meminfo.ok() ? MemInfoBytes(*meminfo, "MemAvailable") : std::nullopt;
  if (!available.has_value()) {
    return Warn(kPageCache, absl::StrCat("cannot read MemAvailable from ", kMemInfo),
                "check that /proc is mounted");
  }
  const int64_t cached = MemInfoBytes(*meminfo, "Cached").value_or(0);
  const int64_t pool = PoolBytes(spec);
  const std::string figures = absl::StrCat("MemAvailable ", Gib(*available),
                                           pool > *available ? " < " : " >= ", PoolText(spec),
                                           ", page cache now ", Gib(cached));
  if (pool > *available) {
    return Ok(kPageCache, absl::StrCat(figures, ": the pool does not fit in free RAM"));
  }
  return Warn(
      kPageCache,
      absl::StrCat(figures,
                   ": the pool fits in free RAM, so its chunks may be read back from the "
                   "page cache and the NVME tier measure RAM"),
      "add \"use_odirect\": true to the fs L2 adapter (docs/results.md \"Making the NVME tier "
      "read the disk\"), or make nvme_pool_gb larger than free RAM, or drop the page cache "
      "before each replay");
}

}  // namespace

std::vector<v1::PreflightCheck> CheckNvme(const std::string& nvme_cache_dir,
                                          const tiers::ProfileSet& profiles,
                                          const std::optional<v1::JobSpec>& spec,
                                          PreflightProbes& probes) {
  const char* const names[] = {kDir, kBlockDevice, kDirect, kFreeSpace, kPageCache};
  std::vector<v1::PreflightCheck> checks;
  if (nvme_cache_dir.empty()) {
    for (const char* name : names) {
      checks.push_back(Skip(name, "no nvme_cache_dir: this node runs no NVME scenario"));
    }
    return checks;
  }
  NvmeDir dir;
  dir.configured = nvme_cache_dir;
  checks.push_back(CheckDir(&dir));
  if (dir.usable) {
    absl::StatusOr<FileSystemStat> fs = probes.StatFileSystem(dir.real);
    if (fs.ok()) {
      dir.fs = *fs;
    } else {
      checks.push_back(Fail(kBlockDevice, std::string(fs.status().message()),
                            "check that nvme_cache_dir is on a mounted local file system",
                            {v1::NVME}));
    }
  }
  if (!dir.fs.has_value()) {
    const std::string failed = checks.back().name();
    for (size_t i = checks.size(); i < std::size(names); ++i) {
      checks.push_back(Skip(names[i], absl::StrCat("not checked: ", failed, " fails")));
    }
    return checks;
  }
  checks.push_back(CheckBlockDevice(dir, probes));
  checks.push_back(CheckDirect(dir, probes));
  checks.push_back(CheckFreeSpace(dir, profiles, spec));
  checks.push_back(CheckPageCache(profiles, spec, probes));
  return checks;
}

}  // namespace kvbench::agent::preflight
