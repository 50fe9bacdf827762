#pragma once

#include <string>

#include "common/parquet/byte_source.h"

namespace kvbench::parquet {

// A whole file held in memory.
class MemoryByteSource : public ByteSource {
 public:
  explicit MemoryByteSource(std::string bytes) : bytes_(std::move(bytes)) {}

  int64_t size() const override { return static_cast<int64_t>(bytes_.size()); }
  absl::StatusOr<std::string> Read(int64_t offset, int64_t length) override;

 private:
  std::string bytes_;
};

}  // namespace kvbench::parquet
