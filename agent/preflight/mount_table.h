#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kvbench::agent::preflight {

// One line of /proc/self/mountinfo (proc(5)): what is mounted where.
struct MountEntry {
  std::string device_number;  // "259:1" (major:minor; 0:N for tmpfs, overlay, ...)
  std::string mount_point;    // "/mnt/nvme" (octal escapes such as \040 decoded)
  std::string fs_type;        // "ext4", "tmpfs", "overlay"
  std::string source;         // "/dev/nvme0n1p1", "tmpfs", "overlay", "server:/export"
};

// The mount `path` (absolute, symlinks resolved) lives on: the entry with the longest mount
// point that contains it, the last one listed when several are mounted on the same point (it
// covers the others). nullopt when `mountinfo` has no usable line for it.
std::optional<MountEntry> FindMount(const std::string& mountinfo, const std::string& path);

// A statfs f_type's name: "tmpfs", "overlay", "ext4", ...; "0x..." for one not known here.
std::string FileSystemName(int64_t type);
// File systems that hold no block device's data: tmpfs, ramfs and overlay (a container's
// writable layer, in RAM or on whatever the host put it) — an NVMe pool there measures no disk.
bool IsMemoryOrOverlay(int64_t type);
// Network and FUSE file systems (nfs, cifs/smb, 9p, fuse, virtiofs, ceph, lustre): not a local
// disk.
bool IsRemoteOrFuse(int64_t type);

// The kernel's name of the block device behind `source` ("/dev/nvme0n1p1" -> "nvme0n1p1",
// "/dev/mapper/vg-lv" -> "vg-lv"); "" when `source` is not a /dev path.
std::string DeviceName(const std::string& source);

}  // namespace kvbench::agent::preflight
