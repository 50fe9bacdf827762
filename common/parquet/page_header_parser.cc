// PageHeader and its per-type headers (data v1, data v2, dictionary).
#include "common/parquet/metadata_parser.h"
#include "common/parquet/thrift_compact_reader.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet {
namespace {

using Reader = ThriftCompactReader;

absl::Status ParseDataPageHeader(Reader& reader, DataPageHeader* out) {
  return reader.ForEachField([&](const ThriftField& field) {
    switch (field.id) {
      case 1:
        return reader.Read(field, &out->num_values);
      case 2:
        return reader.Read(field, &out->encoding);
      case 3:
        return reader.Read(field, &out->definition_level_encoding);
      case 4:
        return reader.Read(field, &out->repetition_level_encoding);
      default:
        return reader.Skip(field.type);
    }
  });
}

absl::Status ParseDataPageHeaderV2(Reader& reader, DataPageHeaderV2* out) {
  return reader.ForEachField([&](const ThriftField& field) {
    switch (field.id) {
      case 1:
        return reader.Read(field, &out->num_values);
      case 2:
        return reader.Read(field, &out->num_nulls);
      case 3:
        return reader.Read(field, &out->num_rows);
      case 4:
        return reader.Read(field, &out->encoding);
      case 5:
        return reader.Read(field, &out->definition_levels_byte_length);
      case 6:
        return reader.Read(field, &out->repetition_levels_byte_length);
      case 7:
        return reader.Read(field, &out->is_compressed);
      default:
        return reader.Skip(field.type);
    }
  });
}

absl::Status ParseDictionaryPageHeader(Reader& reader, DictionaryPageHeader* out) {
  return reader.ForEachField([&](const ThriftField& field) {
    switch (field.id) {
      case 1:
        return reader.Read(field, &out->num_values);
      case 2:
        return reader.Read(field, &out->encoding);
      default:
        return reader.Skip(field.type);
    }
  });
}

absl::Status ParsePageHeaderField(Reader& reader, const ThriftField& field, PageHeader* out) {
  switch (field.id) {
    case 1:
      return reader.Read(field, &out->type);
    case 2:
      return reader.Read(field, &out->uncompressed_page_size);
    case 3:
      return reader.Read(field, &out->compressed_page_size);
    case 4:
      return reader.Read(field, &out->crc);
    case 5:
      KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftStruct));
      return ParseDataPageHeader(reader, &out->data_page_header.emplace());
    case 7:
      KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftStruct));
      return ParseDictionaryPageHeader(reader, &out->dictionary_page_header.emplace());
    case 8:
      KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftStruct));
      return ParseDataPageHeaderV2(reader, &out->data_page_header_v2.emplace());
    default:
      return reader.Skip(field.type);
  }
}

}  // namespace

absl::StatusOr<PageHeader> ParsePageHeader(absl::string_view bytes, size_t* header_size) {
  Reader reader(bytes);
  PageHeader out;
  KV_RETURN_IF_ERROR(reader.ForEachField(
      [&](const ThriftField& field) { return ParsePageHeaderField(reader, field, &out); }));
  *header_size = reader.position();
  return out;
}

}  // namespace kvbench::parquet
