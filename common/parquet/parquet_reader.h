#pragma once

// A streaming reader of Parquet files, native (no Arrow): opens the footer, then reads one row
// group at a time, its column chunks when that row group is reached, and hands out rows as JSON
// objects (see row_assembler.h for the mapping of nested types).
//
//   KV_ASSIGN_OR_RETURN(auto reader, ParquetReader::Open(path));
//   Json row;
//   while (true) {
//     KV_ASSIGN_OR_RETURN(bool more, reader->Next(&row));
//     if (!more) break;
//     ...
//   }
//
// Supported: data pages v1 and v2; PLAIN, RLE/bit-packed (levels, booleans), PLAIN_DICTIONARY,
// RLE_DICTIONARY, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
// BYTE_STREAM_SPLIT; UNCOMPRESSED, SNAPPY, GZIP, ZSTD; every physical type; page CRCs checked.
// Refused with UNIMPLEMENTED naming the feature (and column): encryption, other codecs (LZ4,
// LZ4_RAW, BROTLI, LZO), other encodings (BIT_PACKED levels, unknown ids), column chunks stored
// in other files.
// Corrupt input is INVALID_ARGUMENT (DATA_LOSS for a CRC mismatch), never a crash.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/parquet/byte_source.h"
#include "common/parquet/metadata.h"
#include "common/parquet/row_assembler.h"
#include "common/parquet/schema.h"
#include "common/parquet/value_decoder.h"

namespace kvbench::parquet {

// Largest footer accepted.
inline constexpr int64_t kMaxFooterBytes = int64_t{64} << 20;

class ParquetReader {
 public:
  static absl::StatusOr<std::unique_ptr<ParquetReader>> Open(const std::string& path);
  // A file held in memory (tests, fuzzing).
  static absl::StatusOr<std::unique_ptr<ParquetReader>> OpenFromMemory(std::string bytes);
  static absl::StatusOr<std::unique_ptr<ParquetReader>> OpenSource(
      std::unique_ptr<ByteSource> source);

  const Schema& schema() const { return schema_; }
  // The sum of the row groups' row counts (some writers leave the footer's num_rows 0:
  // repeated_no_annotation.parquet).
  int64_t num_rows() const { return num_rows_; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  const std::string& created_by() const { return metadata_.created_by; }

  // The next row into *row: true, or false after the last row.
  absl::StatusOr<bool> Next(Json* row);

 private:
  ParquetReader(std::unique_ptr<ByteSource> source, FileMetaData metadata, Schema schema)
      : source_(std::move(source)), metadata_(std::move(metadata)), schema_(std::move(schema)) {}

  absl::Status CheckSupported();  // also sums num_rows_
  absl::Status CheckColumnChunk(const ColumnChunk& chunk, const SchemaNode& leaf);
  absl::Status LoadRowGroup(int index);
  absl::StatusOr<ColumnData> ReadColumnChunk(const ColumnChunk& chunk, int leaf);

  // Declared in dependency order.
  std::unique_ptr<ByteSource> source_;
  FileMetaData metadata_;
  Schema schema_;
  int64_t num_rows_ = 0;
  int next_row_group_ = 0;
  std::optional<RowAssembler> row_group_;
  int64_t next_row_ = 0;  // within row_group_
};

}  // namespace kvbench::parquet
