#pragma once

#include <string>

#include "absl/status/status.h"

namespace kvbench {

// Files and folders this process creates from here on are its user's alone: umask 077, inherited
// by its children (controller.db, its WAL, the agent's spool, logs and request records
// are not for others to read). Call at a daemon's start.
void MakeNewFilesPrivate();

// chmod 0700 on `folder` when its group or others have any access to it (an operator's mkdir of
// the data dir); logs the change. FAILED_PRECONDITION naming it when it cannot.
absl::Status MakeFolderPrivate(const std::string& folder);

}  // namespace kvbench
