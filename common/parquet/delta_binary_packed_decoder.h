#pragma once

// Parquet's DELTA_BINARY_PACKED encoding (INT32/INT64 values, and the lengths inside
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY): a header <block size> <miniblocks per block>
// <total count> <first value>, then blocks of <min delta> <miniblock bit widths> <bit-packed
// deltas>. Arithmetic wraps, as the format specifies.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::parquet {

class DeltaBinaryPackedDecoder {
 public:
  explicit DeltaBinaryPackedDecoder(absl::string_view data) : data_(data) {}

  // Decodes `count` values (at most the header's total) into *out; afterwards consumed() is the
  // size of the encoded run, where what follows it (byte-array data) starts.
  absl::Status Decode(size_t count, std::vector<int64_t>* out);
  size_t consumed() const { return position_; }

 private:
  absl::Status ReadHeader(uint64_t* total, uint64_t* first);
  absl::Status ReadBlock(size_t wanted, uint64_t* last, std::vector<int64_t>* out);
  absl::StatusOr<uint64_t> ReadVarint();
  uint64_t ReadBits(size_t bit_offset, int width) const;

  absl::string_view data_;
  size_t position_ = 0;
  uint64_t block_size_ = 0;
  uint64_t miniblocks_ = 0;
  size_t keep_ = 0;  // values stored; the rest of the run is decoded and dropped
};

}  // namespace kvbench::parquet
