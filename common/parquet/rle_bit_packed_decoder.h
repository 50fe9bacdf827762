#pragma once

// Parquet's RLE/bit-packed hybrid encoding (definition and repetition levels, dictionary
// indices, RLE booleans): runs of <varint header><value> and groups of 8 bit-packed values.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kvbench::parquet {

class RleBitPackedDecoder {
 public:
  // `bit_width` in [0, 32]; the caller checks it.
  RleBitPackedDecoder(absl::string_view data, int bit_width)
      : data_(data), bit_width_(bit_width) {}

  // Appends exactly `count` values to *out; INVALID_ARGUMENT when the data ends first.
  absl::Status Decode(size_t count, std::vector<uint32_t>* out);

 private:
  absl::Status NextRun();
  uint32_t ReadPacked(size_t index) const;

  absl::string_view data_;
  int bit_width_;
  size_t position_ = 0;
  // The current run: `remaining_` values, either `run_value_` repeated or bit-packed at
  // packed_start_ (`packed_next_` the index of the next one).
  size_t remaining_ = 0;
  bool packed_ = false;
  uint32_t run_value_ = 0;
  size_t packed_start_ = 0;
  size_t packed_next_ = 0;
};

// Bits needed for values up to max_value: 0 for 0, 1 for 1, 2 for 2..3, ...
int BitWidth(uint32_t max_value);

}  // namespace kvbench::parquet
