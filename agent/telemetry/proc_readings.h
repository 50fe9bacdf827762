#pragma once

// Raw counters read from /proc: one sample each, monotonically increasing since boot. Rates and
// utilisation come from the difference of two samples (agent/sampler/derived_metrics.h).
// Field names follow proc(5) and Documentation/admin-guide/iostats.rst.

#include <cstdint>

namespace kvbench::telemetry {

// The first "cpu" line of /proc/stat, summed over all CPUs, in USER_HZ ticks
// (sysconf(_SC_CLK_TCK), 100 on Linux). Fields a kernel does not report are 0.
struct CpuTimes {
  uint64_t user = 0;
  uint64_t nice = 0;
  uint64_t system = 0;
  uint64_t idle = 0;
  uint64_t iowait = 0;
  uint64_t irq = 0;
  uint64_t softirq = 0;
  uint64_t steal = 0;
};

// The CPU time of one process, from fields 14 and 15 of /proc/<pid>/stat, in USER_HZ ticks.
// Only the process's own threads (cutime/cstime of waited-for children are not included).
struct ProcessCpuTicks {
  uint64_t utime = 0;  // user mode
  uint64_t stime = 0;  // kernel mode
  uint64_t total() const { return utime + stime; }
};

// One device's line of /proc/diskstats (fields 4-14). Sectors are 512 bytes whatever the
// device's sector size; times are milliseconds.
struct DiskStatsReading {
  uint64_t reads_completed = 0;
  uint64_t sectors_read = 0;
  uint64_t ms_reading = 0;
  uint64_t writes_completed = 0;
  uint64_t sectors_written = 0;
  uint64_t ms_writing = 0;
  uint64_t ios_in_progress = 0;  // a gauge, not a counter
  uint64_t ms_doing_io = 0;
  uint64_t weighted_ms = 0;
};

}  // namespace kvbench::telemetry
