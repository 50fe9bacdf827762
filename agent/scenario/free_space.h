#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kvbench::agent {

// Free bytes for an unprivileged writer (statvfs f_bavail x f_frsize) on the file system of `dir`,
// or of the nearest folder above it that exists (the same file system unless a mount comes
// between); nullopt when it cannot be read.
std::optional<int64_t> FreeBytesUnder(const std::string& dir);

}  // namespace kvbench::agent
