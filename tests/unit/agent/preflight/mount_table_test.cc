// /proc/self/mountinfo as the preflight reads it (agent/preflight/mount_table.h).
#include "agent/preflight/mount_table.h"

#include <catch2/catch.hpp>

namespace kvbench::testing {
namespace {

using agent::preflight::DeviceName;
using agent::preflight::FileSystemName;
using agent::preflight::FindMount;
using agent::preflight::IsMemoryOrOverlay;

// Shaped as proc(5) documents it, from a container with its own /dev/shm and an NVMe volume.
constexpr char kMountInfo[] =
    "27 1 0:45 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/l,upperdir=/u\n"
    "30 27 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=65536k\n"
    "31 27 259:1 /kv /mnt/nvme rw,noatime shared:7 - ext4 /dev/nvme0n1p1 rw\n"
    "32 31 259:2 / /mnt/nvme rw,noatime - xfs /dev/nvme1n1 rw\n"
    "33 27 259:3 / /mnt/with\\040space rw - ext4 /dev/nvme2n1 rw\n";

TEST_CASE("FindMount: the longest mount point holding the path, the last of equal ones") {
  CHECK(FindMount(kMountInfo, "/var/lib/kv")->fs_type == "overlay");
  CHECK(FindMount(kMountInfo, "/dev/shm/pool")->fs_type == "tmpfs");
  const auto nvme = FindMount(kMountInfo, "/mnt/nvme/kvbench");
  REQUIRE(nvme.has_value());
  CHECK(nvme->source == "/dev/nvme1n1");  // mounted over the first
  CHECK(nvme->mount_point == "/mnt/nvme");
  CHECK(nvme->device_number == "259:2");
  CHECK(FindMount(kMountInfo, "/mnt/nvmeX")->fs_type == "overlay");  // not a prefix match
  CHECK(FindMount(kMountInfo, "/mnt/with space/x")->source == "/dev/nvme2n1");
  CHECK_FALSE(FindMount("garbage\n", "/x").has_value());
}

TEST_CASE("file system names and what holds no disk") {
  CHECK(FileSystemName(0x01021994) == "tmpfs");
  CHECK(FileSystemName(0xEF53) == "ext4");
  CHECK(FileSystemName(0x12345) == "0x12345");
  CHECK(IsMemoryOrOverlay(0x01021994));
  CHECK(IsMemoryOrOverlay(0x794c7630));
  CHECK(IsMemoryOrOverlay(0x858458f6));
  CHECK_FALSE(IsMemoryOrOverlay(0x58465342));
  CHECK(DeviceName("/dev/nvme0n1p1") == "nvme0n1p1");
  CHECK(DeviceName("/dev/mapper/vg-data") == "vg-data");
  CHECK(DeviceName("server:/export") == "");
}

}  // namespace
}  // namespace kvbench::testing
