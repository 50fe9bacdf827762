#pragma once

#include <ostream>
#include <string>

#include "agent/preflight/preflight.h"

namespace kvbench::agent::preflight {

// What `kv-agent --preflight` and `kvctl doctor` print: one aligned line per check (STATUS,
// CHECK, DETAIL), under a check that does not pass a "→ remedy" line (a FAIL's also saying what
// it keeps off the node), then the versions read and a summary line ("preflight: 1 FAIL, 2 WARN,
// 9 OK, 4 SKIP").
void PrintPreflight(const PreflightReport& report, std::ostream& out);

// The report as JSON: {"checks": [PreflightCheck...], "versions": [ComponentVersion...],
// "failed": N} (proto JSON names).
std::string PreflightJson(const PreflightReport& report);

}  // namespace kvbench::agent::preflight
