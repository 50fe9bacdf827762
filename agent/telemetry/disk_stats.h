#pragma once

// Block-device I/O counters from /proc/diskstats (Documentation/admin-guide/iostats.rst), and the
// device holding a path. Pure parser of the file text plus thin readers taking the path.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/telemetry/proc_readings.h"

namespace kvbench::telemetry {

// One line per block device (disks, partitions, dm-*, md*, nvme*, loop*).
inline constexpr char kProcDiskStatsPath[] = "/proc/diskstats";

// A device number, major:minor, as in stat(2)'s st_dev and the first two columns of diskstats.
struct DeviceNumber {
  uint32_t major = 0;
  uint32_t minor = 0;

  std::string ToString() const;  // "259:1"
  friend bool operator==(const DeviceNumber& a, const DeviceNumber& b) {
    return a.major == b.major && a.minor == b.minor;
  }
};

struct BlockDevice {
  std::string name;  // "nvme0n1p1", as in /proc/diskstats and /sys/class/block
  DeviceNumber number;
};

struct DiskStatsEntry {
  BlockDevice device;
  DiskStatsReading reading;
};

// The line of `diskstats` for `device`. Kernels print 11 counters (before 4.18), 15 (discards,
// 4.18+) or 17 (flushes, 5.5+); the first 11 are used. NOT_FOUND when no line has that number;
// INVALID_ARGUMENT when that line has fewer than 11 counters or a counter is not a number.
// Other malformed lines are skipped.
absl::StatusOr<DiskStatsEntry> ParseDiskStats(absl::string_view diskstats, DeviceNumber device);

// Reads `path` and parses it (errors are prefixed with the path).
absl::StatusOr<DiskStatsEntry> ReadDiskStats(DeviceNumber device,
                                             const std::string& path = kProcDiskStatsPath);

// The block device holding `path`: stat(path).st_dev, found in `diskstats_path`. A file on a
// partition gives the partition ("sda1"), not the whole disk. NOT_FOUND, saying so, when the
// filesystem's device has no diskstats line (overlay, tmpfs, btrfs, NFS: anonymous devices
// with major 0, which have no per-device I/O counters); NOT_FOUND / UNAVAILABLE when `path`
// cannot be stat'ed.
absl::StatusOr<BlockDevice> DeviceForPath(const std::string& path,
                                          const std::string& diskstats_path = kProcDiskStatsPath);

}  // namespace kvbench::telemetry
