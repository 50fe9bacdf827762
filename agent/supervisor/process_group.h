#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"

namespace kvbench::agent {

// Small POSIX helpers for process groups the agent no longer holds a Process for (orphans left
// by a crashed predecessor, members outliving their leader).

// Whether some process, zombies included, is still in group `pgid`.
bool ProcessGroupExists(int pgid);

// Reaps, without blocking, every exited member of group `pgid` that is a child of this process
// (the agent is a subreaper, so orphans become its children).
void ReapProcessGroupChildren(int pgid);

// When process `pid` started (wall clock, from /proc; about 1 s precision), or nullopt if there
// is no such process or /proc cannot tell.
std::optional<absl::Time> ProcessStartTime(int pid);

// Its start time in clock ticks since boot (/proc/<pid>/stat field 22): with the pid, a process's
// identity for as long as the machine runs. nullopt when there is no such process.
std::optional<int64_t> ProcessStartTicks(int pid);

// The program it runs (/proc/<pid>/exe, without a " (deleted)" suffix); "" when unknown.
std::string ProcessExecutable(int pid);

}  // namespace kvbench::agent
