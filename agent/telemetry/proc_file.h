#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace kvbench::telemetry {

// The whole content of a /proc (or any) text file; /proc files report size 0, so it reads to EOF.
// NOT_FOUND when the file does not exist (a process that has exited), UNAVAILABLE on other errors;
// the message names the path and the OS error.
absl::StatusOr<std::string> ReadProcFile(const std::string& path);

}  // namespace kvbench::telemetry
