#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace kvbench::datasets {

// Lower-case hex SHA-256 of a file's content (OpenSSL EVP), read in blocks.
// NOT_FOUND when the file cannot be opened; INTERNAL on a read or digest failure.
absl::StatusOr<std::string> Sha256OfFile(const std::string& path);

}  // namespace kvbench::datasets
