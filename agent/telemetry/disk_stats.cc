#include "agent/telemetry/disk_stats.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/telemetry/proc_file.h"

namespace kvbench::telemetry {
namespace {

// Columns of a diskstats line: major, minor, name, then the counters.
constexpr size_t kFirstCounter = 3;
constexpr size_t kCountersUsed = 11;
// Counter columns (0-based from kFirstCounter) that DiskStatsReading keeps; the merged counts
// (1 and 5) are skipped.
constexpr size_t kReadsCompleted = 0;
constexpr size_t kSectorsRead = 2;
constexpr size_t kMsReading = 3;
constexpr size_t kWritesCompleted = 4;
constexpr size_t kSectorsWritten = 6;
constexpr size_t kMsWriting = 7;
constexpr size_t kIosInProgress = 8;
constexpr size_t kMsDoingIo = 9;
constexpr size_t kWeightedMs = 10;

absl::StatusOr<DiskStatsReading> ParseCounters(const std::vector<absl::string_view>& words,
                                               absl::string_view line) {
  if (words.size() < kFirstCounter + kCountersUsed) {
    return absl::InvalidArgumentError(
        absl::StrCat("diskstats line has ", words.size() - kFirstCounter,
                     " counters, want at least ", kCountersUsed, ": ", line));
  }
  uint64_t counters[kCountersUsed] = {};
  for (size_t i = 0; i < kCountersUsed; ++i) {
    if (!absl::SimpleAtoi(words[kFirstCounter + i], &counters[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("diskstats counter ", i + 1, " is not a number: ", line));
    }
  }
  DiskStatsReading reading;
  reading.reads_completed = counters[kReadsCompleted];
  reading.sectors_read = counters[kSectorsRead];
  reading.ms_reading = counters[kMsReading];
  reading.writes_completed = counters[kWritesCompleted];
  reading.sectors_written = counters[kSectorsWritten];
  reading.ms_writing = counters[kMsWriting];
  reading.ios_in_progress = counters[kIosInProgress];
  reading.ms_doing_io = counters[kMsDoingIo];
  reading.weighted_ms = counters[kWeightedMs];
  return reading;
}

}  // namespace

std::string DeviceNumber::ToString() const { return absl::StrCat(major, ":", minor); }

absl::StatusOr<DiskStatsEntry> ParseDiskStats(absl::string_view diskstats, DeviceNumber device) {
  for (absl::string_view line : absl::StrSplit(diskstats, '\n')) {
    std::vector<absl::string_view> words =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    DeviceNumber number;
    if (words.size() < kFirstCounter || !absl::SimpleAtoi(words[0], &number.major) ||
        !absl::SimpleAtoi(words[1], &number.minor) || !(number == device)) {
      continue;
    }
    absl::StatusOr<DiskStatsReading> reading = ParseCounters(words, line);
    if (!reading.ok()) return reading.status();
    return DiskStatsEntry{BlockDevice{std::string(words[2]), number}, *reading};
  }
  return absl::NotFoundError(absl::StrCat("no diskstats line for device ", device.ToString()));
}

absl::StatusOr<DiskStatsEntry> ReadDiskStats(DeviceNumber device, const std::string& path) {
  absl::StatusOr<std::string> text = ReadProcFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<DiskStatsEntry> entry = ParseDiskStats(*text, device);
  if (!entry.ok()) {
    return absl::Status(entry.status().code(), absl::StrCat(path, ": ", entry.status().message()));
  }
  return entry;
}

absl::StatusOr<BlockDevice> DeviceForPath(const std::string& path,
                                          const std::string& diskstats_path) {
  struct stat info = {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    const std::string message = absl::StrCat("cannot stat ", path, ": ", std::strerror(error));
    if (error == ENOENT || error == ENOTDIR) return absl::NotFoundError(message);
    return absl::UnavailableError(message);
  }
  const DeviceNumber number{major(info.st_dev), minor(info.st_dev)};
  absl::StatusOr<std::string> diskstats = ReadProcFile(diskstats_path);
  if (!diskstats.ok()) return diskstats.status();
  absl::StatusOr<DiskStatsEntry> entry = ParseDiskStats(*diskstats, number);
  if (absl::IsNotFound(entry.status())) {
    return absl::NotFoundError(absl::StrCat(
        path, " is on device ", number.ToString(), ", which has no line in ", diskstats_path,
        " (an overlay, tmpfs, btrfs or network filesystem has no block device of its own): "
        "no disk I/O counters for it"));
  }
  if (!entry.ok()) {
    return absl::Status(entry.status().code(),
                        absl::StrCat(diskstats_path, ": ", entry.status().message()));
  }
  return entry->device;
}

}  // namespace kvbench::telemetry
