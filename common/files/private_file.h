#pragma once

// A secret read from a file (a database connection string with its password, a signing key):
// refused when the file's group or others may read it, as ssh refuses a private key others can
// read, so a secret left world-readable is found at start rather than copied.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench {

// The text of `path` with surrounding whitespace removed. `field` names the setting in errors:
// NOT_FOUND when the file cannot be read, INVALID_ARGUMENT when it is not a regular file (never
// opened then: a FIFO would block the reader), FAILED_PRECONDITION (with its mode and the chmod
// that fixes it) when group or others have any access, INVALID_ARGUMENT when it holds nothing.
absl::StatusOr<std::string> ReadOwnerOnlyFile(const std::string& path, absl::string_view field);

}  // namespace kvbench
