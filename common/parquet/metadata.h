#pragma once

// Parquet's Thrift metadata (parquet.thrift), reduced to the fields kvbench's reader uses. Enum
// fields keep the raw int32 so that values the reader does not know can be named in errors.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kvbench::parquet {

enum PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};
enum Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum ConvertedType : int32_t {
  kConvertedUtf8 = 0,
  kConvertedMap = 1,
  kConvertedMapKeyValue = 2,
  kConvertedList = 3
};
// The field ids of the LogicalType union.
enum LogicalTypeId : int32_t {
  kLogicalNone = 0,
  kLogicalString = 1,
  kLogicalMap = 2,
  kLogicalList = 3
};
enum Codec : int32_t { kUncompressed = 0, kSnappy = 1, kGzip = 2, kZstd = 6 };
enum Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};
enum PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };

struct SchemaElement {
  std::optional<int32_t> type;
  int32_t type_length = 0;
  std::optional<int32_t> repetition_type;
  std::string name;
  int32_t num_children = 0;
  std::optional<int32_t> converted_type;
  int32_t logical_type = kLogicalNone;
};

struct ColumnMetaData {
  int32_t type = 0;
  std::vector<std::string> path_in_schema;
  int32_t codec = 0;
  int64_t num_values = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;
};

struct ColumnChunk {
  std::string file_path;
  std::optional<ColumnMetaData> meta_data;
  bool encrypted = false;  // crypto_metadata or encrypted_column_metadata present
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t num_rows = 0;
};

struct FileMetaData {
  int32_t version = 0;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  bool encrypted = false;  // encryption_algorithm present (plaintext footer, encrypted columns)
  std::string created_by;
};

struct DataPageHeader {
  int32_t num_values = 0;
  int32_t encoding = 0;
  int32_t definition_level_encoding = 0;
  int32_t repetition_level_encoding = 0;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  int32_t encoding = 0;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  int32_t encoding = 0;
};

struct PageHeader {
  int32_t type = 0;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
};

// Names for error messages: "SNAPPY", "DELTA_BINARY_PACKED", "INT96", ...
const char* CodecName(int32_t codec);
const char* EncodingName(int32_t encoding);
const char* PhysicalTypeName(int32_t type);

}  // namespace kvbench::parquet
