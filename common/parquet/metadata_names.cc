#include "common/parquet/metadata.h"

namespace kvbench::parquet {

const char* CodecName(int32_t codec) {
  static const char* const kNames[] = {"UNCOMPRESSED", "SNAPPY", "GZIP",  "LZO",
                                       "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
  return codec >= 0 && codec < 8 ? kNames[codec] : "unknown codec";
}

const char* EncodingName(int32_t encoding) {
  static const char* const kNames[] = {
      "PLAIN",         "GROUP_VAR_INT",           "PLAIN_DICTIONARY", "RLE",
      "BIT_PACKED",    "DELTA_BINARY_PACKED",     "DELTA_LENGTH_BYTE_ARRAY",
      "DELTA_BYTE_ARRAY", "RLE_DICTIONARY",       "BYTE_STREAM_SPLIT"};
  return encoding >= 0 && encoding < 10 ? kNames[encoding] : "unknown encoding";
}

const char* PhysicalTypeName(int32_t type) {
  static const char* const kNames[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                       "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  return type >= 0 && type < 8 ? kNames[type] : "unknown type";
}

}  // namespace kvbench::parquet
