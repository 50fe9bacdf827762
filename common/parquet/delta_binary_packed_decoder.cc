#include "common/parquet/delta_binary_packed_decoder.h"

#include "absl/status/statusor.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet {
namespace {

absl::Status CorruptDelta(const char* what) {
  return absl::InvalidArgumentError(std::string("corrupt DELTA_BINARY_PACKED data: ") + what);
}

uint64_t UnZigZag(uint64_t v) { return (v >> 1) ^ (~(v & 1) + 1); }

}  // namespace

absl::StatusOr<uint64_t> DeltaBinaryPackedDecoder::ReadVarint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (position_ >= data_.size()) return CorruptDelta("varint past the end");
    const uint8_t byte = static_cast<uint8_t>(data_[position_++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return CorruptDelta("varint too long");
}

uint64_t DeltaBinaryPackedDecoder::ReadBits(size_t bit_offset, int width) const {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i, ++bit_offset) {
    const uint8_t byte = static_cast<uint8_t>(data_[position_ + bit_offset / 8]);
    value |= static_cast<uint64_t>((byte >> (bit_offset % 8)) & 1) << i;
  }
  return value;
}

absl::Status DeltaBinaryPackedDecoder::ReadHeader(uint64_t* total, uint64_t* first) {
  KV_ASSIGN_OR_RETURN(block_size_, ReadVarint());
  KV_ASSIGN_OR_RETURN(miniblocks_, ReadVarint());
  KV_ASSIGN_OR_RETURN(*total, ReadVarint());
  KV_ASSIGN_OR_RETURN(uint64_t zigzag, ReadVarint());
  *first = UnZigZag(zigzag);
  if (block_size_ == 0 || block_size_ % 128 != 0 || block_size_ > (1u << 20)) {
    return CorruptDelta("block size not a multiple of 128");
  }
  if (miniblocks_ == 0 || block_size_ % miniblocks_ != 0 || block_size_ / miniblocks_ == 0 ||
      (block_size_ / miniblocks_) % 32 != 0) {
    return CorruptDelta("bad miniblock count");
  }
  return absl::OkStatus();
}

absl::Status DeltaBinaryPackedDecoder::ReadBlock(size_t wanted, uint64_t* last,
                                                 std::vector<int64_t>* out) {
  KV_ASSIGN_OR_RETURN(uint64_t min_delta_zigzag, ReadVarint());
  const uint64_t min_delta = UnZigZag(min_delta_zigzag);
  if (miniblocks_ > data_.size() - position_) return CorruptDelta("bit widths past the end");
  const absl::string_view widths = data_.substr(position_, miniblocks_);
  position_ += miniblocks_;
  const size_t per_miniblock = block_size_ / miniblocks_;
  for (size_t m = 0; m < miniblocks_ && wanted > 0; ++m) {
    const int width = static_cast<uint8_t>(widths[m]);
    if (width > 64) return CorruptDelta("bit width over 64");
    const size_t bytes = per_miniblock * width / 8;
    if (bytes > data_.size() - position_) return CorruptDelta("miniblock past the end");
    const size_t take = wanted < per_miniblock ? wanted : per_miniblock;
    for (size_t i = 0; i < take && out->size() < keep_; ++i) {
      *last += min_delta + ReadBits(i * width, width);
      out->push_back(static_cast<int64_t>(*last));
    }
    wanted -= take;
    position_ += bytes;
  }
  return absl::OkStatus();
}

absl::Status DeltaBinaryPackedDecoder::Decode(size_t count, std::vector<int64_t>* out) {
  uint64_t total = 0;
  uint64_t last = 0;
  KV_RETURN_IF_ERROR(ReadHeader(&total, &last));
  if (count > total) return CorruptDelta("fewer values than the page holds");
  if (total == 0) return absl::OkStatus();
  // The run ends after all `total` values, however many the caller keeps: blocks past `count`
  // are walked, not stored.
  std::vector<int64_t> values;
  keep_ = count;
  if (count > 0) values.push_back(static_cast<int64_t>(last));
  for (uint64_t left = total - 1; left > 0;) {
    const size_t before = position_;
    const uint64_t chunk = left < block_size_ ? left : block_size_;
    KV_RETURN_IF_ERROR(ReadBlock(static_cast<size_t>(chunk), &last, &values));
    left -= chunk;
    if (position_ == before) return CorruptDelta("no progress");
  }
  if (values.size() != count) return CorruptDelta("fewer values than its header says");
  out->insert(out->end(), values.begin(), values.end());
  return absl::OkStatus();
}

}  // namespace kvbench::parquet
