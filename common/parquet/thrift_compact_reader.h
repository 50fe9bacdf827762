#pragma once

// A bounds-checked reader of the Thrift compact protocol, enough for Parquet's metadata: field
// headers, varints (zigzag i16/i32/i64), binaries, lists, and skipping of any value whose field
// the caller does not know (nested up to kMaxThriftDepth).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kvbench::parquet {

// Compact-protocol type ids (the low nibble of a field header).
enum ThriftType : uint8_t {
  kThriftStop = 0,
  kThriftTrue = 1,
  kThriftFalse = 2,
  kThriftByte = 3,
  kThriftI16 = 4,
  kThriftI32 = 5,
  kThriftI64 = 6,
  kThriftDouble = 7,
  kThriftBinary = 8,
  kThriftList = 9,
  kThriftSet = 10,
  kThriftMap = 11,
  kThriftStruct = 12,
};

// Deepest nesting of structs/lists that Skip follows before it calls the input corrupt.
inline constexpr int kMaxThriftDepth = 64;

struct ThriftField {
  int16_t id = 0;
  uint8_t type = kThriftStop;
};

class ThriftCompactReader {
 public:
  explicit ThriftCompactReader(absl::string_view data) : data_(data) {}

  size_t position() const { return position_; }

  // Reads the fields of one struct up to its stop field, calling `on_field(field)` (returning
  // absl::Status) for each; the callback reads the field's value, or Skips it when it does not
  // know the id. The first error ends the loop and is returned.
  template <typename OnField>
  absl::Status ForEachField(OnField&& on_field) {
    int16_t last_id = 0;
    while (true) {
      ThriftField field;
      absl::Status status = ReadFieldHeader(&last_id, &field);
      if (!status.ok()) return status;
      if (field.type == kThriftStop) return absl::OkStatus();
      status = on_field(static_cast<const ThriftField&>(field));
      if (!status.ok()) return status;
    }
  }

  // The next field header of the struct being read; `last_id` is that struct's previous field id
  // (0 at its start). type == kThriftStop ends the struct.
  absl::Status ReadFieldHeader(int16_t* last_id, ThriftField* field);
  absl::Status ReadListHeader(uint8_t* element_type, uint32_t* size);
  absl::StatusOr<uint64_t> ReadVarint();
  absl::StatusOr<int64_t> ReadZigZag();
  absl::StatusOr<std::string> ReadBinary();

  // Typed reads of a field's value: INVALID_ARGUMENT when the wire type does not match.
  absl::Status Read(const ThriftField& field, int32_t* out);
  absl::Status Read(const ThriftField& field, int64_t* out);
  absl::Status Read(const ThriftField& field, bool* out);
  absl::Status Read(const ThriftField& field, std::string* out);
  absl::Status Read(const ThriftField& field, std::vector<int32_t>* out);
  absl::Status Read(const ThriftField& field, std::vector<std::string>* out);
  // An optional field: set only when its value reads.
  template <typename T>
  absl::Status Read(const ThriftField& field, std::optional<T>* out) {
    T value{};
    absl::Status status = Read(field, &value);
    if (status.ok()) *out = value;
    return status;
  }

  // Skips a value of `type` (field context: booleans carry their value in the type).
  absl::Status Skip(uint8_t type, int depth = 0);
  // Checks the field's wire type, for struct- and list-valued fields the caller parses itself.
  static absl::Status Expect(const ThriftField& field, uint8_t type);

 private:
  absl::Status SkipListElements(uint8_t element_type, uint32_t size, int depth);
  absl::Status Take(size_t length, absl::string_view* out);

  absl::string_view data_;
  size_t position_ = 0;
};

}  // namespace kvbench::parquet
