#include "common/parquet/parquet_reader.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/parquet/column_chunk_reader.h"
#include "common/parquet/file_byte_source.h"
#include "common/parquet/memory_byte_source.h"
#include "common/parquet/metadata_parser.h"
#include "common/parquet/page_decompressor.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet {
namespace {

constexpr char kMagic[] = "PAR1";
constexpr char kEncryptedMagic[] = "PARE";

}  // namespace

absl::StatusOr<std::unique_ptr<ParquetReader>> ParquetReader::Open(const std::string& path) {
  KV_ASSIGN_OR_RETURN(std::unique_ptr<FileByteSource> source, FileByteSource::Open(path));
  return OpenSource(std::move(source));
}

absl::StatusOr<std::unique_ptr<ParquetReader>> ParquetReader::OpenFromMemory(std::string bytes) {
  return OpenSource(std::make_unique<MemoryByteSource>(std::move(bytes)));
}

absl::StatusOr<std::unique_ptr<ParquetReader>> ParquetReader::OpenSource(
    std::unique_ptr<ByteSource> source) {
  const int64_t size = source->size();
  if (size < 12) return absl::InvalidArgumentError("not a Parquet file: shorter than 12 bytes");
  KV_ASSIGN_OR_RETURN(std::string head, source->Read(0, 4));
  KV_ASSIGN_OR_RETURN(std::string tail, source->Read(size - 8, 8));
  if (tail.compare(4, 4, kEncryptedMagic) == 0) {
    return absl::UnimplementedError(
        "encrypted Parquet file (encrypted footer, magic PARE) is not supported");
  }
  if (tail.compare(4, 4, kMagic) != 0 || head != kMagic) {
    return absl::InvalidArgumentError("not a Parquet file: no PAR1 magic");
  }
  uint32_t footer_length = 0;
  std::memcpy(&footer_length, tail.data(), 4);
  if (footer_length > size - 12 || footer_length > kMaxFooterBytes) {
    return absl::InvalidArgumentError(absl::StrCat("corrupt Parquet footer: length ", footer_length,
                                                   " in a file of ", size, " bytes"));
  }
  KV_ASSIGN_OR_RETURN(std::string footer, source->Read(size - 8 - footer_length, footer_length));
  KV_ASSIGN_OR_RETURN(FileMetaData metadata, ParseFileMetaData(footer));
  if (metadata.encrypted) {
    return absl::UnimplementedError(
        "encrypted Parquet file (plaintext footer with encrypted columns) is not supported");
  }
  KV_ASSIGN_OR_RETURN(Schema schema, Schema::Create(metadata.schema));
  std::unique_ptr<ParquetReader> reader(
      new ParquetReader(std::move(source), std::move(metadata), std::move(schema)));
  KV_RETURN_IF_ERROR(reader->CheckSupported());
  return reader;
}

absl::Status ParquetReader::CheckSupported() {
  if (metadata_.num_rows < 0) return absl::InvalidArgumentError("negative num_rows in the footer");
  const size_t leaves = schema_.leaves().size();
  for (const RowGroup& group : metadata_.row_groups) {
    if (group.num_rows < 0 || group.num_rows > INT64_MAX - num_rows_) {
      return absl::InvalidArgumentError("bad num_rows in a row group");
    }
    if (group.columns.size() != leaves) {
      return absl::InvalidArgumentError(absl::StrCat("row group has ", group.columns.size(),
                                                     " column chunks for ", leaves, " columns"));
    }
    if (leaves == 0 && group.num_rows > 0) {
      return absl::InvalidArgumentError("row group with rows but a schema without columns");
    }
    for (size_t i = 0; i < leaves; ++i) {
      KV_RETURN_IF_ERROR(CheckColumnChunk(group.columns[i], schema_.leaf(static_cast<int>(i))));
    }
    num_rows_ += group.num_rows;
  }
  return absl::OkStatus();
}

absl::Status ParquetReader::CheckColumnChunk(const ColumnChunk& chunk, const SchemaNode& leaf) {
  if (chunk.encrypted) {
    return absl::UnimplementedError(
        absl::StrCat("encrypted column ", leaf.path, " is not supported"));
  }
  if (!chunk.file_path.empty()) {
    return absl::UnimplementedError(absl::StrCat("column ", leaf.path, " stored in another file (",
                                                 chunk.file_path, ") is not supported"));
  }
  if (!chunk.meta_data.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("column ", leaf.path, " has no metadata"));
  }
  const ColumnMetaData& meta = *chunk.meta_data;
  if (!IsSupportedCodec(meta.codec)) {
    return absl::UnimplementedError(absl::StrCat("compression codec ", CodecName(meta.codec),
                                                 " (column ", leaf.path, ") is not supported"));
  }
  if (meta.type != leaf.physical_type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "column ", leaf.path, " is ", PhysicalTypeName(meta.type), " in its metadata but ",
        PhysicalTypeName(leaf.physical_type), " in the schema"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ColumnData> ParquetReader::ReadColumnChunk(const ColumnChunk& chunk, int leaf) {
  const ColumnMetaData& meta = *chunk.meta_data;
  const SchemaNode& node = schema_.leaf(leaf);
  int64_t start = meta.data_page_offset;
  // Some writers store 0 for "no dictionary" (dict-page-offset-zero.parquet).
  if (meta.dictionary_page_offset.has_value() && *meta.dictionary_page_offset > 0 &&
      *meta.dictionary_page_offset < start) {
    start = *meta.dictionary_page_offset;
  }
  if (start < 4 || meta.total_compressed_size < 0 ||
      meta.total_compressed_size > source_->size() - start) {
    return absl::InvalidArgumentError(
        absl::StrCat("column chunk ", node.path, " lies outside the file"));
  }
  KV_ASSIGN_OR_RETURN(std::string bytes, source_->Read(start, meta.total_compressed_size));
  return ColumnChunkReader::Read(node, meta, bytes);
}

absl::Status ParquetReader::LoadRowGroup(int index) {
  const RowGroup& group = metadata_.row_groups[index];
  std::vector<ColumnData> columns;
  // An empty row group's chunks may point nowhere (column_chunk_key_value_metadata.parquet).
  for (size_t i = 0; group.num_rows > 0 && i < group.columns.size(); ++i) {
    KV_ASSIGN_OR_RETURN(ColumnData column, ReadColumnChunk(group.columns[i], static_cast<int>(i)));
    columns.push_back(std::move(column));
  }
  if (group.num_rows == 0) columns.resize(group.columns.size());
  KV_ASSIGN_OR_RETURN(RowAssembler assembler,
                      RowAssembler::Create(&schema_, std::move(columns), group.num_rows));
  row_group_.emplace(std::move(assembler));
  next_row_ = 0;
  return absl::OkStatus();
}

absl::StatusOr<bool> ParquetReader::Next(Json* row) {
  while (!row_group_.has_value() || next_row_ >= row_group_->num_rows()) {
    row_group_.reset();
    if (next_row_group_ >= num_row_groups()) return false;
    KV_RETURN_IF_ERROR(LoadRowGroup(next_row_group_++));
  }
  KV_ASSIGN_OR_RETURN(*row, row_group_->Assemble(next_row_++));
  return true;
}

}  // namespace kvbench::parquet
