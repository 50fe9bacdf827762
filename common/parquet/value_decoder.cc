#include "common/parquet/value_decoder.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/parquet/delta_binary_packed_decoder.h"
#include "common/parquet/metadata.h"
#include "common/parquet/rle_bit_packed_decoder.h"
#include "common/parquet/schema.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet {
namespace {

absl::Status CorruptValues(const SchemaNode& leaf, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("corrupt values in column ", leaf.path, ": ", what));
}

absl::Status TooLarge(const SchemaNode& leaf) {
  return absl::ResourceExhaustedError(absl::StrCat("a page of column ", leaf.path, " expands past ",
                                                   kMaxExpandedPageBytes, " bytes"));
}

template <typename T>
T Load(const char* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

Json Int96ToNanos(const char* bytes) {
  constexpr int64_t kUnixEpochJulianDay = 2440588;
  constexpr int64_t kNanosPerDay = int64_t{86400} * 1000000000;
  const int64_t nanos_of_day = Load<int64_t>(bytes);
  const int64_t day = static_cast<int64_t>(Load<uint32_t>(bytes + 8)) - kUnixEpochJulianDay;
  int64_t nanos = 0;
  if (__builtin_mul_overflow(day, kNanosPerDay, &nanos) ||
      __builtin_add_overflow(nanos, nanos_of_day, &nanos)) {
    // Out of the int64 nanosecond range (Spark writes such dates): the raw fields, not a guess.
    return absl::StrCat("INT96(julian_day=", day + kUnixEpochJulianDay, ",nanos=", nanos_of_day,
                        ")");
  }
  return nanos;
}

// Fixed-width PLAIN values: `width` bytes each.
absl::Status DecodeFixed(const SchemaNode& leaf, absl::string_view data, size_t count,
                         std::vector<Json>* out) {
  size_t width = 0;
  switch (leaf.physical_type) {
    case kInt32:
    case kFloat:
      width = 4;
      break;
    case kInt64:
    case kDouble:
      width = 8;
      break;
    case kInt96:
      width = 12;
      break;
    default:
      width = static_cast<size_t>(leaf.type_length);
      break;
  }
  if (width != 0 && count > data.size() / width)
    return CorruptValues(leaf, "fewer bytes than values");
  if (width == 0 && count > (size_t{1} << 26)) return CorruptValues(leaf, "too many empty values");
  out->reserve(out->size() + count);
  for (size_t i = 0; i < count; ++i) {
    const char* p = data.data() + i * width;
    switch (leaf.physical_type) {
      case kInt32:
        out->emplace_back(Load<int32_t>(p));
        break;
      case kInt64:
        out->emplace_back(Load<int64_t>(p));
        break;
      case kFloat:
        out->emplace_back(Load<float>(p));
        break;
      case kDouble:
        out->emplace_back(Load<double>(p));
        break;
      case kInt96:
        out->push_back(Int96ToNanos(p));
        break;
      default:
        out->emplace_back(std::string(p, width));
        break;
    }
  }
  return absl::OkStatus();
}

absl::Status DecodePlain(const SchemaNode& leaf, absl::string_view data, size_t count,
                         std::vector<Json>* out) {
  if (leaf.physical_type == kBoolean) {
    if (count > data.size() * 8) return CorruptValues(leaf, "fewer bits than booleans");
    for (size_t i = 0; i < count; ++i) {
      out->emplace_back(((static_cast<uint8_t>(data[i / 8]) >> (i % 8)) & 1) != 0);
    }
    return absl::OkStatus();
  }
  if (leaf.physical_type != kByteArray) return DecodeFixed(leaf, data, count, out);
  size_t position = 0;
  for (size_t i = 0; i < count; ++i) {
    if (data.size() - position < 4) return CorruptValues(leaf, "byte array length past the end");
    const uint32_t length = Load<uint32_t>(data.data() + position);
    position += 4;
    if (length > data.size() - position) return CorruptValues(leaf, "byte array past the end");
    out->emplace_back(std::string(data.data() + position, length));
    position += length;
  }
  return absl::OkStatus();
}

absl::Status DecodeRleBooleans(const SchemaNode& leaf, absl::string_view data, size_t count,
                               std::vector<Json>* out) {
  if (leaf.physical_type != kBoolean)
    return CorruptValues(leaf, "RLE values of a non-boolean column");
  if (data.size() < 4) return CorruptValues(leaf, "RLE length past the end");
  const uint32_t length = Load<uint32_t>(data.data());
  if (length > data.size() - 4) return CorruptValues(leaf, "RLE data past the end");
  std::vector<uint32_t> bits;
  RleBitPackedDecoder decoder(data.substr(4, length), 1);
  KV_RETURN_IF_ERROR(decoder.Decode(count, &bits));
  for (uint32_t bit : bits) out->emplace_back(bit != 0);
  return absl::OkStatus();
}

absl::Status DecodeDictionaryIndices(const SchemaNode& leaf, absl::string_view data, size_t count,
                                     const std::vector<Json>* dictionary, std::vector<Json>* out) {
  if (dictionary == nullptr)
    return CorruptValues(leaf, "dictionary-encoded page without a dictionary");
  if (count == 0) return absl::OkStatus();
  if (data.empty()) return CorruptValues(leaf, "no bit width for dictionary indices");
  const int bit_width = static_cast<uint8_t>(data[0]);
  if (bit_width > 32) return CorruptValues(leaf, "dictionary index bit width over 32");
  std::vector<uint32_t> indices;
  RleBitPackedDecoder decoder(data.substr(1), bit_width);
  KV_RETURN_IF_ERROR(decoder.Decode(count, &indices));
  out->reserve(out->size() + count);
  size_t bytes = 0;
  for (uint32_t index : indices) {
    if (index >= dictionary->size()) return CorruptValues(leaf, "dictionary index out of range");
    const Json& value = (*dictionary)[index];
    bytes += value.is_string() ? value.get_ref<const std::string&>().size() : 0;
    if (bytes > kMaxExpandedPageBytes) return TooLarge(leaf);
    out->push_back(value);
  }
  return absl::OkStatus();
}

absl::Status DecodeDeltaIntegers(const SchemaNode& leaf, absl::string_view data, size_t count,
                                 std::vector<Json>* out) {
  if (leaf.physical_type != kInt32 && leaf.physical_type != kInt64) {
    return CorruptValues(leaf, "DELTA_BINARY_PACKED values of a non-integer column");
  }
  std::vector<int64_t> values;
  DeltaBinaryPackedDecoder decoder(data);
  absl::Status status = decoder.Decode(count, &values);
  if (!status.ok()) return CorruptValues(leaf, status.message());
  for (int64_t v : values) {
    if (leaf.physical_type == kInt32) {
      out->emplace_back(static_cast<int32_t>(static_cast<uint32_t>(v)));
    } else {
      out->emplace_back(v);
    }
  }
  return absl::OkStatus();
}

// `count` lengths (DELTA_BINARY_PACKED) then the bytes, concatenated; *consumed gets the size.
absl::Status DecodeDeltaLengths(const SchemaNode& leaf, absl::string_view data, size_t count,
                                std::vector<std::string>* out, size_t* consumed) {
  std::vector<int64_t> lengths;
  DeltaBinaryPackedDecoder decoder(data);
  absl::Status status = decoder.Decode(count, &lengths);
  if (!status.ok()) return CorruptValues(leaf, status.message());
  size_t position = decoder.consumed();
  for (int64_t length : lengths) {
    if (length < 0 || static_cast<uint64_t>(length) > data.size() - position) {
      return CorruptValues(leaf, "byte array length past the end");
    }
    out->emplace_back(data.substr(position, static_cast<size_t>(length)));
    position += static_cast<size_t>(length);
  }
  *consumed = position;
  return absl::OkStatus();
}

absl::Status DecodeDeltaLengthByteArray(const SchemaNode& leaf, absl::string_view data,
                                        size_t count, std::vector<Json>* out) {
  if (leaf.physical_type != kByteArray)
    return CorruptValues(leaf, "DELTA_LENGTH_BYTE_ARRAY of non-bytes");
  std::vector<std::string> values;
  size_t consumed = 0;
  KV_RETURN_IF_ERROR(DecodeDeltaLengths(leaf, data, count, &values, &consumed));
  for (std::string& v : values) out->emplace_back(std::move(v));
  return absl::OkStatus();
}

// Prefix lengths (DELTA_BINARY_PACKED), then suffixes (DELTA_LENGTH_BYTE_ARRAY).
absl::Status DecodeDeltaByteArray(const SchemaNode& leaf, absl::string_view data, size_t count,
                                  std::vector<Json>* out) {
  if (leaf.physical_type != kByteArray && leaf.physical_type != kFixedLenByteArray) {
    return CorruptValues(leaf, "DELTA_BYTE_ARRAY of non-bytes");
  }
  std::vector<int64_t> prefixes;
  DeltaBinaryPackedDecoder decoder(data);
  absl::Status status = decoder.Decode(count, &prefixes);
  if (!status.ok()) return CorruptValues(leaf, status.message());
  std::vector<std::string> suffixes;
  size_t consumed = 0;
  KV_RETURN_IF_ERROR(
      DecodeDeltaLengths(leaf, data.substr(decoder.consumed()), count, &suffixes, &consumed));
  std::string previous;
  size_t bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    if (prefixes[i] < 0 || static_cast<uint64_t>(prefixes[i]) > previous.size()) {
      return CorruptValues(leaf, "prefix longer than the previous value");
    }
    bytes += static_cast<size_t>(prefixes[i]) + suffixes[i].size();
    if (bytes > kMaxExpandedPageBytes) return TooLarge(leaf);
    previous = previous.substr(0, static_cast<size_t>(prefixes[i])) + suffixes[i];
    out->emplace_back(previous);
  }
  return absl::OkStatus();
}

absl::Status DecodeByteStreamSplit(const SchemaNode& leaf, absl::string_view data, size_t count,
                                   std::vector<Json>* out) {
  size_t width = 0;
  switch (leaf.physical_type) {
    case kInt32:
    case kFloat:
      width = 4;
      break;
    case kInt64:
    case kDouble:
      width = 8;
      break;
    case kFixedLenByteArray:
      width = static_cast<size_t>(leaf.type_length);
      break;
    default:
      return CorruptValues(leaf, "BYTE_STREAM_SPLIT of an unsupported type");
  }
  if (width == 0 || count > data.size() / width)
    return CorruptValues(leaf, "fewer bytes than values");
  std::string joined(count * width, '\0');
  for (size_t i = 0; i < count; ++i) {
    for (size_t b = 0; b < width; ++b) joined[i * width + b] = data[b * count + i];
  }
  return DecodeFixed(leaf, joined, count, out);
}

}  // namespace

absl::Status DecodeValues(const SchemaNode& leaf, int32_t encoding, absl::string_view data,
                          size_t count, const std::vector<Json>* dictionary,
                          std::vector<Json>* out) {
  switch (encoding) {
    case kPlain:
      return DecodePlain(leaf, data, count, out);
    case kRle:
      return DecodeRleBooleans(leaf, data, count, out);
    case kPlainDictionary:
    case kRleDictionary:
      return DecodeDictionaryIndices(leaf, data, count, dictionary, out);
    case kDeltaBinaryPacked:
      return DecodeDeltaIntegers(leaf, data, count, out);
    case kDeltaLengthByteArray:
      return DecodeDeltaLengthByteArray(leaf, data, count, out);
    case kDeltaByteArray:
      return DecodeDeltaByteArray(leaf, data, count, out);
    case kByteStreamSplit:
      return DecodeByteStreamSplit(leaf, data, count, out);
    default:
      return absl::UnimplementedError(absl::StrCat("encoding ", EncodingName(encoding), " (column ",
                                                   leaf.path, ") is not supported"));
  }
}

}  // namespace kvbench::parquet
