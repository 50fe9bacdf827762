#include "agent/telemetry/proc_stat.h"

#include <cstdint>
#include <iterator>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/telemetry/proc_file.h"

namespace kvbench::telemetry {
namespace {

// In /proc/<pid>/stat, counted from 0 at `state` (field 3, the first after comm's ')'): utime is
// field 14 and stime field 15.
constexpr size_t kUtimeAfterComm = 11;
constexpr size_t kStimeAfterComm = 12;
// user, nice, system, idle: present in every kernel's "cpu" line.
constexpr size_t kRequiredCpuFields = 4;

std::vector<absl::string_view> Words(absl::string_view text) {
  return absl::StrSplit(text, absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
}

absl::Status PrefixPath(const std::string& path, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

}  // namespace

absl::StatusOr<CpuTimes> ParseProcStatCpu(absl::string_view proc_stat) {
  for (absl::string_view line : absl::StrSplit(proc_stat, '\n')) {
    std::vector<absl::string_view> words = Words(line);
    if (words.empty() || words[0] != "cpu") continue;
    CpuTimes times;
    uint64_t* const slots[] = {&times.user,   &times.nice, &times.system,  &times.idle,
                               &times.iowait, &times.irq,  &times.softirq, &times.steal};
    const size_t available = words.size() - 1;
    if (available < kRequiredCpuFields) {
      return absl::InvalidArgumentError(absl::StrCat("\"cpu\" line has ", available,
                                                     " fields, want at least ", kRequiredCpuFields,
                                                     ": ", line));
    }
    for (size_t i = 0; i < std::size(slots) && i < available; ++i) {
      if (!absl::SimpleAtoi(words[i + 1], slots[i])) {
        return absl::InvalidArgumentError(
            absl::StrCat("\"cpu\" line field ", i + 1, " is not a number: ", line));
      }
    }
    return times;
  }
  return absl::InvalidArgumentError("no \"cpu\" line");
}

absl::StatusOr<ProcessCpuTicks> ParseProcPidStat(absl::string_view pid_stat) {
  const size_t close_paren = pid_stat.rfind(')');
  if (close_paren == absl::string_view::npos) {
    return absl::InvalidArgumentError("no ')' closing the command name");
  }
  std::vector<absl::string_view> fields = Words(pid_stat.substr(close_paren + 1));
  if (fields.size() <= kStimeAfterComm) {
    return absl::InvalidArgumentError(absl::StrCat(
        "only ", fields.size(), " fields after the command name, want ", kStimeAfterComm + 1));
  }
  ProcessCpuTicks ticks;
  if (!absl::SimpleAtoi(fields[kUtimeAfterComm], &ticks.utime) ||
      !absl::SimpleAtoi(fields[kStimeAfterComm], &ticks.stime)) {
    return absl::InvalidArgumentError(absl::StrCat("utime/stime are not numbers: \"",
                                                   fields[kUtimeAfterComm], "\" \"",
                                                   fields[kStimeAfterComm], "\""));
  }
  return ticks;
}

std::string ProcPidStatPath(int pid) { return absl::StrCat("/proc/", pid, "/stat"); }

absl::StatusOr<CpuTimes> ReadCpuTimes(const std::string& path) {
  absl::StatusOr<std::string> text = ReadProcFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<CpuTimes> times = ParseProcStatCpu(*text);
  if (!times.ok()) return PrefixPath(path, times.status());
  return times;
}

absl::StatusOr<ProcessCpuTicks> ReadProcessCpuTicks(const std::string& path) {
  absl::StatusOr<std::string> text = ReadProcFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<ProcessCpuTicks> ticks = ParseProcPidStat(*text);
  if (!ticks.ok()) return PrefixPath(path, ticks.status());
  return ticks;
}

}  // namespace kvbench::telemetry
