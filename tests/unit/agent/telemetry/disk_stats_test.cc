// /proc/diskstats and DeviceForPath: the parser on real-shaped text (the three kernel formats),
// the readers on temp files, and this machine's root filesystem.

#include "agent/telemetry/disk_stats.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tests/support/temp_dir.h"

namespace kvbench::telemetry {
namespace {

using ::kvbench::testing::TempDir;

// A 5.15 kernel: 17 counters (reads, writes, discards, flushes), NVMe disk and partitions, a
// device-mapper volume, a loop device.
constexpr char kDiskStats[] =
    "   7       0 loop0 53 0 2136 11 0 0 0 0 0 36 11 0 0 0 0 0 0\n"
    " 259       0 nvme0n1 891234 12034 98123456 301234 2345678 345678 187654321 4567890 3 "
    "1234567 4870000 1200 0 5566778 890 45678 1234\n"
    " 259       1 nvme0n1p1 412 0 14560 98 2 0 2 0 0 120 98 0 0 0 0 0 0\n"
    " 259       2 nvme0n1p2 890000 12034 98100000 301000 2345600 345678 187654000 4567800 2 "
    "1234000 4868800 1200 0 5566778 0 0 0\n"
    " 253       0 dm-0 885000 0 98000000 300000 2690000 0 187600000 5000000 0 1230000 5300000 0 "
    "0 0 0 0 0\n";

TEST_CASE("ParseDiskStats finds the device's line and maps the 11 counters") {
  absl::StatusOr<DiskStatsEntry> entry = ParseDiskStats(kDiskStats, DeviceNumber{259, 0});
  REQUIRE(entry.ok());
  CHECK(entry->device.name == "nvme0n1");
  CHECK(entry->device.number == DeviceNumber{259, 0});
  const DiskStatsReading& r = entry->reading;
  CHECK(r.reads_completed == 891234);
  CHECK(r.sectors_read == 98123456);
  CHECK(r.ms_reading == 301234);
  CHECK(r.writes_completed == 2345678);
  CHECK(r.sectors_written == 187654321);
  CHECK(r.ms_writing == 4567890);
  CHECK(r.ios_in_progress == 3);
  CHECK(r.ms_doing_io == 1234567);
  CHECK(r.weighted_ms == 4870000);
}

TEST_CASE("ParseDiskStats table: kernel formats, lookups, malformed lines") {
  struct Case {
    const char* name;
    std::string text;
    DeviceNumber device;
    absl::StatusCode code;
    const char* device_name;
    uint64_t weighted_ms;
  };
  const Case cases[] = {
      {"partition, not its disk",
       kDiskStats,
       {259, 2},
       absl::StatusCode::kOk,
       "nvme0n1p2",
       4868800},
      {"device-mapper", kDiskStats, {253, 0}, absl::StatusCode::kOk, "dm-0", 5300000},
      {"pre-4.18: 11 counters",
       "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11\n",
       {8, 0},
       absl::StatusCode::kOk,
       "sda",
       11},
      {"4.18+: 15 counters",
       "   8      16 sdb 1 2 3 4 5 6 7 8 9 10 12 0 0 0 0\n",
       {8, 16},
       absl::StatusCode::kOk,
       "sdb",
       12},
      {"tabs and no trailing newline",
       "8\t0\tsda\t1 2 3 4 5 6 7 8 9 10 13",
       {8, 0},
       absl::StatusCode::kOk,
       "sda",
       13},
      {"minor must match too", kDiskStats, {259, 9}, absl::StatusCode::kNotFound, "", 0},
      {"anonymous device (overlay)", kDiskStats, {0, 45}, absl::StatusCode::kNotFound, "", 0},
      {"empty file", "", {8, 0}, absl::StatusCode::kNotFound, "", 0},
      {"other malformed lines are skipped",
       "garbage\n 8 x sdz 1\n   8       0 sda 1 2 3 4 5 6 7 8 9 10 14\n",
       {8, 0},
       absl::StatusCode::kOk,
       "sda",
       14},
      {"too few counters",
       "   8       0 sda 1 2 3 4 5 6 7 8 9 10\n",
       {8, 0},
       absl::StatusCode::kInvalidArgument,
       "",
       0},
      {"counter not a number",
       "   8       0 sda 1 2 3 4 5 6 7 8 9 x 11\n",
       {8, 0},
       absl::StatusCode::kInvalidArgument,
       "",
       0},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    absl::StatusOr<DiskStatsEntry> entry = ParseDiskStats(c.text, c.device);
    INFO(entry.status().ToString());
    REQUIRE(entry.status().code() == c.code);
    if (entry.ok()) {
      CHECK(entry->device.name == c.device_name);
      CHECK(entry->reading.weighted_ms == c.weighted_ms);
    }
  }
}

TEST_CASE("ReadDiskStats reads the file it is given") {
  TempDir dir;
  const std::string path = dir.WriteFile("diskstats", kDiskStats);
  absl::StatusOr<DiskStatsEntry> entry = ReadDiskStats(DeviceNumber{7, 0}, path);
  REQUIRE(entry.ok());
  CHECK(entry->device.name == "loop0");
  CHECK(entry->reading.sectors_read == 2136);

  absl::StatusOr<DiskStatsEntry> missing = ReadDiskStats(DeviceNumber{1, 1}, path);
  CHECK(absl::IsNotFound(missing.status()));
  CHECK_THAT(std::string(missing.status().message()),
             Catch::Contains(path) && Catch::Contains("1:1"));
  CHECK(absl::IsNotFound(ReadDiskStats(DeviceNumber{7, 0}, dir.File("absent")).status()));
}

TEST_CASE("DeviceForPath: the st_dev of the path, looked up in the diskstats file given") {
  TempDir dir;
  const std::string file = dir.WriteFile("data", "x");
  struct stat info = {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  const DeviceNumber number{major(info.st_dev), minor(info.st_dev)};

  SECTION("a device with a diskstats line: its name and number") {
    const std::string diskstats = dir.WriteFile(
        "diskstats", absl::StrCat(kDiskStats, " ", number.major, " ", number.minor,
                                  " testdisk1 1 2 3 4 5 6 7 8 9 10 11 0 0 0 0 0 0\n"));
    absl::StatusOr<BlockDevice> device = DeviceForPath(file, diskstats);
    INFO(device.status().ToString());
    REQUIRE(device.ok());
    CHECK(device->name == "testdisk1");
    CHECK(device->number == number);
  }
  SECTION("no line (overlay, tmpfs, btrfs): NOT_FOUND saying why") {
    const std::string diskstats = dir.WriteFile("diskstats", "");
    absl::StatusOr<BlockDevice> device = DeviceForPath(file, diskstats);
    CHECK(absl::IsNotFound(device.status()));
    CHECK(device.status().message() ==
          absl::StrCat(file, " is on device ", number.ToString(), ", which has no line in ",
                       diskstats,
                       " (an overlay, tmpfs, btrfs or network filesystem has no block device "
                       "of its own): no disk I/O counters for it"));
  }
  SECTION("a path that does not exist: NOT_FOUND naming it") {
    absl::StatusOr<BlockDevice> device = DeviceForPath(dir.File("absent"));
    CHECK(absl::IsNotFound(device.status()));
    CHECK_THAT(std::string(device.status().message()), Catch::Contains("cannot stat"));
  }
}

TEST_CASE("DeviceForPath(\"/\") on this machine: a device, or NOT_FOUND that says why") {
  absl::StatusOr<BlockDevice> root = DeviceForPath("/");
  if (root.ok()) {
    INFO("root is on " << root->name << " (" << root->number.ToString() << ")");
    CHECK_FALSE(root->name.empty());
    CHECK(ReadDiskStats(root->number).ok());
  } else {
    INFO(root.status().ToString());
    CHECK(absl::IsNotFound(root.status()));
    CHECK_THAT(
        std::string(root.status().message()),
        Catch::StartsWith("/ is on device ") && Catch::Contains("no line in /proc/diskstats"));
  }
}

}  // namespace
}  // namespace kvbench::telemetry
