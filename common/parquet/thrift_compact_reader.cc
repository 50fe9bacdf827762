#include "common/parquet/thrift_compact_reader.h"

#include "absl/strings/str_cat.h"

namespace kvbench::parquet {
namespace {

absl::Status Corrupt(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("corrupt Thrift metadata: ", what));
}

}  // namespace

absl::Status ThriftCompactReader::Take(size_t length, absl::string_view* out) {
  if (length > data_.size() - position_) return Corrupt("value past the end of the metadata");
  *out = data_.substr(position_, length);
  position_ += length;
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ThriftCompactReader::ReadVarint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (position_ >= data_.size()) return Corrupt("varint past the end of the metadata");
    const uint8_t byte = static_cast<uint8_t>(data_[position_++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return Corrupt("varint longer than 10 bytes");
}

absl::StatusOr<int64_t> ThriftCompactReader::ReadZigZag() {
  absl::StatusOr<uint64_t> raw = ReadVarint();
  if (!raw.ok()) return raw.status();
  return static_cast<int64_t>((*raw >> 1) ^ (~(*raw & 1) + 1));
}

absl::StatusOr<std::string> ThriftCompactReader::ReadBinary() {
  absl::StatusOr<uint64_t> length = ReadVarint();
  if (!length.ok()) return length.status();
  absl::string_view bytes;
  if (*length > data_.size()) return Corrupt("binary longer than the metadata");
  absl::Status status = Take(static_cast<size_t>(*length), &bytes);
  if (!status.ok()) return status;
  return std::string(bytes);
}

absl::Status ThriftCompactReader::ReadFieldHeader(int16_t* last_id, ThriftField* field) {
  if (position_ >= data_.size()) return Corrupt("struct past the end of the metadata");
  const uint8_t byte = static_cast<uint8_t>(data_[position_++]);
  field->type = byte & 0x0f;
  if (field->type == kThriftStop) return absl::OkStatus();
  const int delta = byte >> 4;
  if (delta != 0) {
    field->id = static_cast<int16_t>(*last_id + delta);
  } else {
    absl::StatusOr<int64_t> id = ReadZigZag();
    if (!id.ok()) return id.status();
    field->id = static_cast<int16_t>(*id);
  }
  if (field->type > kThriftStruct) return Corrupt(absl::StrCat("unknown type ", field->type));
  *last_id = field->id;
  return absl::OkStatus();
}

absl::Status ThriftCompactReader::ReadListHeader(uint8_t* element_type, uint32_t* size) {
  if (position_ >= data_.size()) return Corrupt("list past the end of the metadata");
  const uint8_t byte = static_cast<uint8_t>(data_[position_++]);
  *element_type = byte & 0x0f;
  uint64_t count = byte >> 4;
  if (count == 15) {
    absl::StatusOr<uint64_t> long_count = ReadVarint();
    if (!long_count.ok()) return long_count.status();
    count = *long_count;
  }
  // Every element takes at least one byte, so a longer list cannot be real.
  if (count > data_.size() - position_) return Corrupt("list longer than the metadata");
  if (*element_type > kThriftStruct) return Corrupt("unknown list element type");
  *size = static_cast<uint32_t>(count);
  return absl::OkStatus();
}

absl::Status ThriftCompactReader::Expect(const ThriftField& field, uint8_t type) {
  if (field.type == type) return absl::OkStatus();
  return Corrupt(
      absl::StrCat("field ", field.id, " has wire type ", field.type, ", expected ", type));
}

absl::Status ThriftCompactReader::Read(const ThriftField& field, int32_t* out) {
  if (field.type != kThriftI32 && field.type != kThriftI16 && field.type != kThriftByte) {
    return Expect(field, kThriftI32);
  }
  if (field.type == kThriftByte) {
    absl::string_view byte;
    absl::Status status = Take(1, &byte);
    if (status.ok()) *out = static_cast<int8_t>(byte[0]);
    return status;
  }
  absl::StatusOr<int64_t> value = ReadZigZag();
  if (!value.ok()) return value.status();
  if (*value < INT32_MIN || *value > INT32_MAX) return Corrupt("i32 out of range");
  *out = static_cast<int32_t>(*value);
  return absl::OkStatus();
}

absl::Status ThriftCompactReader::Read(const ThriftField& field, int64_t* out) {
  if (field.type != kThriftI64 && field.type != kThriftI32 && field.type != kThriftI16) {
    return Expect(field, kThriftI64);
  }
  absl::StatusOr<int64_t> value = ReadZigZag();
  if (!value.ok()) return value.status();
  *out = *value;
  return absl::OkStatus();
}

absl::Status ThriftCompactReader::Read(const ThriftField& field, bool* out) {
  if (field.type != kThriftTrue && field.type != kThriftFalse) return Expect(field, kThriftTrue);
  *out = field.type == kThriftTrue;
  return absl::OkStatus();
}

absl::Status ThriftCompactReader::Read(const ThriftField& field, std::string* out) {
  absl::Status status = Expect(field, kThriftBinary);
  if (!status.ok()) return status;
  absl::StatusOr<std::string> value = ReadBinary();
  if (!value.ok()) return value.status();
  *out = *std::move(value);
  return absl::OkStatus();
}

absl::Status ThriftCompactReader::Read(const ThriftField& field, std::vector<int32_t>* out) {
  absl::Status status = Expect(field, kThriftList);
  if (!status.ok()) return status;
  uint8_t type = 0;
  uint32_t size = 0;
  status = ReadListHeader(&type, &size);
  if (!status.ok()) return status;
  if (type != kThriftI32) return Corrupt("expected a list of i32");
  out->clear();
  for (uint32_t i = 0; i < size; ++i) {
    absl::StatusOr<int64_t> value = ReadZigZag();
    if (!value.ok()) return value.status();
    out->push_back(static_cast<int32_t>(*value));
  }
  return absl::OkStatus();
}

absl::Status ThriftCompactReader::Read(const ThriftField& field, std::vector<std::string>* out) {
  absl::Status status = Expect(field, kThriftList);
  if (!status.ok()) return status;
  uint8_t type = 0;
  uint32_t size = 0;
  status = ReadListHeader(&type, &size);
  if (!status.ok()) return status;
  if (type != kThriftBinary) return Corrupt("expected a list of binary");
  out->clear();
  for (uint32_t i = 0; i < size; ++i) {
    absl::StatusOr<std::string> value = ReadBinary();
    if (!value.ok()) return value.status();
    out->push_back(*std::move(value));
  }
  return absl::OkStatus();
}

absl::Status ThriftCompactReader::SkipListElements(uint8_t element_type, uint32_t size, int depth) {
  for (uint32_t i = 0; i < size; ++i) {
    if (element_type == kThriftTrue || element_type == kThriftFalse) {
      absl::string_view byte;  // in collections a bool is one byte
      absl::Status status = Take(1, &byte);
      if (!status.ok()) return status;
      continue;
    }
    absl::Status status = Skip(element_type, depth + 1);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ThriftCompactReader::Skip(uint8_t type, int depth) {
  if (depth > kMaxThriftDepth) return Corrupt("nesting too deep");
  absl::string_view ignored;
  switch (type) {
    case kThriftTrue:
    case kThriftFalse:
      return absl::OkStatus();
    case kThriftByte:
      return Take(1, &ignored);
    case kThriftI16:
    case kThriftI32:
    case kThriftI64:
      return ReadVarint().status();
    case kThriftDouble:
      return Take(8, &ignored);
    case kThriftBinary:
      return ReadBinary().status();
    case kThriftList:
    case kThriftSet: {
      uint8_t element_type = 0;
      uint32_t size = 0;
      absl::Status status = ReadListHeader(&element_type, &size);
      if (!status.ok()) return status;
      return SkipListElements(element_type, size, depth);
    }
    case kThriftMap: {
      absl::StatusOr<uint64_t> size = ReadVarint();
      if (!size.ok()) return size.status();
      if (*size == 0) return absl::OkStatus();
      if (*size > data_.size() - position_) return Corrupt("map longer than the metadata");
      absl::Status status = Take(1, &ignored);
      if (!status.ok()) return status;
      const uint8_t key_type = static_cast<uint8_t>(ignored[0]) >> 4;
      const uint8_t value_type = static_cast<uint8_t>(ignored[0]) & 0x0f;
      for (uint64_t i = 0; i < *size; ++i) {
        status = SkipListElements(key_type, 1, depth);
        if (!status.ok()) return status;
        status = SkipListElements(value_type, 1, depth);
        if (!status.ok()) return status;
      }
      return absl::OkStatus();
    }
    case kThriftStruct:
      return ForEachField([&](const ThriftField& field) { return Skip(field.type, depth + 1); });
    default:
      return Corrupt(absl::StrCat("cannot skip type ", type));
  }
}

}  // namespace kvbench::parquet
