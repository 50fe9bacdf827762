#include "common/parquet/memory_byte_source.h"

#include "absl/strings/str_cat.h"

namespace kvbench::parquet {

absl::StatusOr<std::string> MemoryByteSource::Read(int64_t offset, int64_t length) {
  if (offset < 0 || length < 0 || offset > size() || length > size() - offset) {
    return absl::InvalidArgumentError(absl::StrCat("range ", offset, "+", length,
                                                   " is past the end of the buffer (", size(),
                                                   " bytes)"));
  }
  return bytes_.substr(static_cast<size_t>(offset), static_cast<size_t>(length));
}

}  // namespace kvbench::parquet
