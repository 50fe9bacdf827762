#include "common/parquet/column_chunk_reader.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/checksum/crc32.h"
#include "common/parquet/metadata_parser.h"
#include "common/parquet/page_decompressor.h"
#include "common/parquet/rle_bit_packed_decoder.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet {

absl::StatusOr<ColumnData> ColumnChunkReader::Read(const SchemaNode& leaf,
                                                   const ColumnMetaData& meta,
                                                   absl::string_view chunk) {
  if (meta.num_values < 0) {
    return absl::InvalidArgumentError(absl::StrCat("negative num_values in column ", leaf.path));
  }
  if (meta.num_values > kMaxValuesPerColumnChunk) {
    return absl::ResourceExhaustedError(
        absl::StrCat("column ", leaf.path, " has ", meta.num_values, " values in one row group"));
  }
  ColumnChunkReader reader(leaf, meta);
  KV_RETURN_IF_ERROR(reader.ReadPages(chunk));
  return std::move(reader.data_);
}

absl::Status ColumnChunkReader::Corrupt(absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat("corrupt column chunk ", leaf_.path, ": ", what));
}

absl::Status ColumnChunkReader::ReadPages(absl::string_view chunk) {
  size_t position = 0;
  while (static_cast<int64_t>(data_.definition_levels.size()) < meta_.num_values) {
    if (position >= chunk.size()) {
      return Corrupt(absl::StrCat("ends after ", data_.definition_levels.size(), " of ",
                                  meta_.num_values, " values"));
    }
    size_t header_size = 0;
    KV_ASSIGN_OR_RETURN(PageHeader header, ParsePageHeader(chunk.substr(position), &header_size));
    position += header_size;
    if (header.compressed_page_size < 0 ||
        static_cast<size_t>(header.compressed_page_size) > chunk.size() - position) {
      return Corrupt("page size past the end of the chunk");
    }
    const absl::string_view page = chunk.substr(position, header.compressed_page_size);
    position += header.compressed_page_size;
    KV_RETURN_IF_ERROR(CheckCrc(header, page));
    if (header.type == kDictionaryPage) {
      KV_RETURN_IF_ERROR(ReadDictionaryPage(header, page));
    } else if (header.type == kDataPage) {
      KV_RETURN_IF_ERROR(ReadDataPageV1(header, page));
    } else if (header.type == kDataPageV2) {
      KV_RETURN_IF_ERROR(ReadDataPageV2(header, page));
    }  // index pages and unknown page types carry no values: skipped
  }
  if (static_cast<int64_t>(data_.definition_levels.size()) != meta_.num_values) {
    return Corrupt("pages hold more values than the column metadata says");
  }
  return absl::OkStatus();
}

absl::Status ColumnChunkReader::CheckCrc(const PageHeader& header, absl::string_view page) const {
  if (!header.crc.has_value()) return absl::OkStatus();
  if (Crc32(page) != static_cast<uint32_t>(*header.crc)) {
    return absl::DataLossError(absl::StrCat("page CRC mismatch in column ", leaf_.path));
  }
  return absl::OkStatus();
}

absl::Status ColumnChunkReader::ReadDictionaryPage(const PageHeader& header,
                                                   absl::string_view page) {
  if (!header.dictionary_page_header.has_value()) return Corrupt("dictionary page without header");
  if (dictionary_.has_value()) return Corrupt("second dictionary page");
  const DictionaryPageHeader& dict = *header.dictionary_page_header;
  if (dict.encoding != kPlain && dict.encoding != kPlainDictionary) {
    return absl::UnimplementedError(absl::StrCat("dictionary encoding ",
                                                 EncodingName(dict.encoding), " (column ",
                                                 leaf_.path, ") is not supported"));
  }
  if (dict.num_values < 0) return Corrupt("negative dictionary size");
  KV_ASSIGN_OR_RETURN(std::string bytes,
                      DecompressPage(meta_.codec, page, header.uncompressed_page_size, leaf_.path));
  dictionary_.emplace();
  return DecodeValues(leaf_, kPlain, bytes, static_cast<size_t>(dict.num_values), nullptr,
                      &*dictionary_);
}

absl::Status ColumnChunkReader::DecodeLevels(absl::string_view data, size_t count,
                                             int16_t max_level, std::vector<int16_t>* out) {
  out->clear();
  if (max_level == 0) {
    out->assign(count, 0);
    return absl::OkStatus();
  }
  std::vector<uint32_t> raw;
  raw.reserve(count);
  RleBitPackedDecoder decoder(data, BitWidth(static_cast<uint32_t>(max_level)));
  absl::Status status = decoder.Decode(count, &raw);
  if (!status.ok()) return Corrupt(status.message());
  out->reserve(count);
  for (uint32_t level : raw) {
    if (level > static_cast<uint32_t>(max_level)) return Corrupt("level out of range");
    out->push_back(static_cast<int16_t>(level));
  }
  return absl::OkStatus();
}

absl::Status ColumnChunkReader::DecodeV1Levels(absl::string_view* data, int32_t encoding,
                                               size_t count, int16_t max_level,
                                               std::vector<int16_t>* out) {
  if (max_level == 0) return DecodeLevels({}, count, 0, out);
  if (encoding != kRle) {
    return absl::UnimplementedError(absl::StrCat("level encoding ", EncodingName(encoding),
                                                 " (column ", leaf_.path, ") is not supported"));
  }
  if (data->size() < 4) return Corrupt("level length past the end of the page");
  uint32_t length = 0;
  std::memcpy(&length, data->data(), 4);
  if (length > data->size() - 4) return Corrupt("levels past the end of the page");
  KV_RETURN_IF_ERROR(DecodeLevels(data->substr(4, length), count, max_level, out));
  data->remove_prefix(4 + length);
  return absl::OkStatus();
}

absl::Status ColumnChunkReader::ReadDataPageV1(const PageHeader& header, absl::string_view page) {
  if (!header.data_page_header.has_value()) return Corrupt("data page without header");
  const DataPageHeader& v1 = *header.data_page_header;
  if (v1.num_values < 0 ||
      v1.num_values > meta_.num_values - static_cast<int64_t>(data_.definition_levels.size())) {
    return Corrupt("page value count past the column's");
  }
  KV_ASSIGN_OR_RETURN(std::string bytes,
                      DecompressPage(meta_.codec, page, header.uncompressed_page_size, leaf_.path));
  absl::string_view data = bytes;
  const size_t count = static_cast<size_t>(v1.num_values);
  std::vector<int16_t> repetition, definition;
  KV_RETURN_IF_ERROR(DecodeV1Levels(&data, v1.repetition_level_encoding, count,
                                    leaf_.max_repetition_level, &repetition));
  KV_RETURN_IF_ERROR(DecodeV1Levels(&data, v1.definition_level_encoding, count,
                                    leaf_.max_definition_level, &definition));
  return AppendPage(v1.encoding, data, count, std::move(definition), std::move(repetition));
}

absl::Status ColumnChunkReader::ReadDataPageV2(const PageHeader& header, absl::string_view page) {
  if (!header.data_page_header_v2.has_value()) return Corrupt("data page v2 without header");
  const DataPageHeaderV2& v2 = *header.data_page_header_v2;
  if (v2.num_values < 0 ||
      v2.num_values > meta_.num_values - static_cast<int64_t>(data_.definition_levels.size())) {
    return Corrupt("page value count past the column's");
  }
  const int64_t rep_length = v2.repetition_levels_byte_length;
  const int64_t def_length = v2.definition_levels_byte_length;
  if (rep_length < 0 || def_length < 0 ||
      rep_length + def_length > static_cast<int64_t>(page.size()) ||
      rep_length + def_length > header.uncompressed_page_size) {
    return Corrupt("level lengths past the end of the page");
  }
  const size_t count = static_cast<size_t>(v2.num_values);
  std::vector<int16_t> repetition, definition;
  KV_RETURN_IF_ERROR(
      DecodeLevels(page.substr(0, rep_length), count, leaf_.max_repetition_level, &repetition));
  KV_RETURN_IF_ERROR(DecodeLevels(page.substr(rep_length, def_length), count,
                                  leaf_.max_definition_level, &definition));
  const absl::string_view compressed = page.substr(rep_length + def_length);
  const int64_t values_size = header.uncompressed_page_size - rep_length - def_length;
  std::string bytes;
  if (v2.is_compressed) {
    KV_ASSIGN_OR_RETURN(bytes, DecompressPage(meta_.codec, compressed, values_size, leaf_.path));
  } else {
    KV_ASSIGN_OR_RETURN(bytes, DecompressPage(kUncompressed, compressed, values_size, leaf_.path));
  }
  return AppendPage(v2.encoding, bytes, count, std::move(definition), std::move(repetition));
}

absl::Status ColumnChunkReader::AppendPage(int32_t encoding, absl::string_view values, size_t count,
                                           std::vector<int16_t> definition,
                                           std::vector<int16_t> repetition) {
  size_t present = 0;
  for (int16_t level : definition) present += level == leaf_.max_definition_level ? 1 : 0;
  std::vector<Json> decoded;
  absl::Status status = DecodeValues(leaf_, encoding, values, present,
                                     dictionary_.has_value() ? &*dictionary_ : nullptr, &decoded);
  if (!status.ok()) return status;
  if (decoded.size() != present) return Corrupt("fewer values than defined levels");
  size_t next = 0;
  for (size_t i = 0; i < count; ++i) {
    if (definition[i] == leaf_.max_definition_level) {
      data_.values.push_back(std::move(decoded[next++]));
    } else {
      data_.values.emplace_back(nullptr);
    }
  }
  data_.definition_levels.insert(data_.definition_levels.end(), definition.begin(),
                                 definition.end());
  data_.repetition_levels.insert(data_.repetition_levels.end(), repetition.begin(),
                                 repetition.end());
  return absl::OkStatus();
}

}  // namespace kvbench::parquet
