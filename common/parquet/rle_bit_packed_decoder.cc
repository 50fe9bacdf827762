#include "common/parquet/rle_bit_packed_decoder.h"

namespace kvbench::parquet {
namespace {

absl::Status CorruptRle(const char* what) {
  return absl::InvalidArgumentError(std::string("corrupt RLE/bit-packed data: ") + what);
}

}  // namespace

int BitWidth(uint32_t max_value) {
  int width = 0;
  while (max_value != 0) {
    ++width;
    max_value >>= 1;
  }
  return width;
}

absl::Status RleBitPackedDecoder::NextRun() {
  uint64_t header = 0;
  for (int shift = 0;; shift += 7) {
    if (shift >= 64) return CorruptRle("run header varint too long");
    if (position_ >= data_.size()) return CorruptRle("data ends before all values");
    const uint8_t byte = static_cast<uint8_t>(data_[position_++]);
    header |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  if ((header & 1) != 0) {
    const uint64_t groups = header >> 1;
    const size_t available = data_.size() - position_;
    // A final group may be cut short by the writer: keep only values whose bits are present.
    const uint64_t bytes = groups * static_cast<uint64_t>(bit_width_);
    const size_t taken = bytes > available ? available : static_cast<size_t>(bytes);
    packed_ = true;
    packed_start_ = position_;
    packed_next_ = 0;
    remaining_ = bit_width_ == 0 ? static_cast<size_t>(groups * 8)
                                 : taken * 8 / static_cast<size_t>(bit_width_);
    if (groups > (uint64_t{1} << 40)) return CorruptRle("bit-packed run too long");
    position_ += taken;
    return absl::OkStatus();
  }
  packed_ = false;
  remaining_ = static_cast<size_t>(header >> 1);
  const size_t value_bytes = (static_cast<size_t>(bit_width_) + 7) / 8;
  if (value_bytes > data_.size() - position_) return CorruptRle("run value past the end");
  run_value_ = 0;
  for (size_t i = 0; i < value_bytes; ++i) {
    run_value_ |= static_cast<uint32_t>(static_cast<uint8_t>(data_[position_ + i])) << (8 * i);
  }
  position_ += value_bytes;
  if (bit_width_ < 32 && (run_value_ >> bit_width_) != 0) return CorruptRle("run value too wide");
  return absl::OkStatus();
}

uint32_t RleBitPackedDecoder::ReadPacked(size_t index) const {
  uint64_t bit = static_cast<uint64_t>(index) * static_cast<uint64_t>(bit_width_);
  uint32_t value = 0;
  for (int i = 0; i < bit_width_; ++i, ++bit) {
    const uint8_t byte = static_cast<uint8_t>(data_[packed_start_ + bit / 8]);
    value |= static_cast<uint32_t>((byte >> (bit % 8)) & 1) << i;
  }
  return value;
}

absl::Status RleBitPackedDecoder::Decode(size_t count, std::vector<uint32_t>* out) {
  if (bit_width_ < 0 || bit_width_ > 32) return CorruptRle("bit width out of range");
  while (count > 0) {
    if (remaining_ == 0) {
      absl::Status status = NextRun();
      if (!status.ok()) return status;
      continue;
    }
    const size_t take = remaining_ < count ? remaining_ : count;
    if (packed_) {
      for (size_t i = 0; i < take; ++i) out->push_back(ReadPacked(packed_next_++));
    } else {
      out->insert(out->end(), take, run_value_);
    }
    remaining_ -= take;
    count -= take;
  }
  return absl::OkStatus();
}

}  // namespace kvbench::parquet
