#pragma once

#include <string>

#include "absl/time/time.h"
#include "agent/work_dir_layout.h"

namespace kvbench::agent {

// Retention of the agent's scenario folders (without it scenarios/ only grows: 12 MB
// after 306 scenarios). An attempt folder, scenarios/<job>/<attempt>/, is removed when the newest
// modification time of anything in it is older than `retention` before `now`; a job folder left
// empty goes too. `keep` (the running attempt's folder, may be empty) is never removed, whatever
// its age. Errors are logged and the folder left for the next pass. Returns how many attempt
// folders were removed.
int PruneScenarioDirs(const WorkDirLayout& layout, absl::Duration retention, absl::Time now,
                      const std::string& keep);

}  // namespace kvbench::agent
