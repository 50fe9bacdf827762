#pragma once

// Where a Parquet file's bytes come from: a file on disk (read piecewise, as the reader reaches
// the footer and each row group) or a buffer in memory (tests, the fuzz target).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace kvbench::parquet {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual int64_t size() const = 0;
  // Exactly `length` bytes at `offset`; INVALID_ARGUMENT when the range is not inside the source.
  virtual absl::StatusOr<std::string> Read(int64_t offset, int64_t length) = 0;
};

}  // namespace kvbench::parquet
