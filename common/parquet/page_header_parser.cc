// PageHeader and its per-type headers (data v1, data v2, dictionary).
#include "common/parquet/metadata_parser.h"
#include "common/parquet/thrift_compact_reader.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet {
namespace {

using Reader = ThriftCompactReader;

absl::Status ParseDataPageHeader(Reader& reader, DataPageHeader* out) {
  int16_t last = 0;
  while (true) {
    ThriftField field;
    KV_RETURN_IF_ERROR(reader.ReadFieldHeader(&last, &field));
    switch (field.type == kThriftStop ? -1 : field.id) {
      case -1: return absl::OkStatus();
      case 1: KV_RETURN_IF_ERROR(reader.Read(field, &out->num_values)); break;
      case 2: KV_RETURN_IF_ERROR(reader.Read(field, &out->encoding)); break;
      case 3: KV_RETURN_IF_ERROR(reader.Read(field, &out->definition_level_encoding)); break;
      case 4: KV_RETURN_IF_ERROR(reader.Read(field, &out->repetition_level_encoding)); break;
      default: KV_RETURN_IF_ERROR(reader.Skip(field.type));
    }
  }
}

absl::Status ParseDataPageHeaderV2(Reader& reader, DataPageHeaderV2* out) {
  int16_t last = 0;
  while (true) {
    ThriftField field;
    KV_RETURN_IF_ERROR(reader.ReadFieldHeader(&last, &field));
    switch (field.type == kThriftStop ? -1 : field.id) {
      case -1: return absl::OkStatus();
      case 1: KV_RETURN_IF_ERROR(reader.Read(field, &out->num_values)); break;
      case 2: KV_RETURN_IF_ERROR(reader.Read(field, &out->num_nulls)); break;
      case 3: KV_RETURN_IF_ERROR(reader.Read(field, &out->num_rows)); break;
      case 4: KV_RETURN_IF_ERROR(reader.Read(field, &out->encoding)); break;
      case 5: KV_RETURN_IF_ERROR(reader.Read(field, &out->definition_levels_byte_length)); break;
      case 6: KV_RETURN_IF_ERROR(reader.Read(field, &out->repetition_levels_byte_length)); break;
      case 7: KV_RETURN_IF_ERROR(reader.Read(field, &out->is_compressed)); break;
      default: KV_RETURN_IF_ERROR(reader.Skip(field.type));
    }
  }
}

absl::Status ParseDictionaryPageHeader(Reader& reader, DictionaryPageHeader* out) {
  int16_t last = 0;
  while (true) {
    ThriftField field;
    KV_RETURN_IF_ERROR(reader.ReadFieldHeader(&last, &field));
    switch (field.type == kThriftStop ? -1 : field.id) {
      case -1: return absl::OkStatus();
      case 1: KV_RETURN_IF_ERROR(reader.Read(field, &out->num_values)); break;
      case 2: KV_RETURN_IF_ERROR(reader.Read(field, &out->encoding)); break;
      default: KV_RETURN_IF_ERROR(reader.Skip(field.type));
    }
  }
}

}  // namespace

absl::StatusOr<PageHeader> ParsePageHeader(absl::string_view bytes, size_t* header_size) {
  Reader reader(bytes);
  PageHeader out;
  int16_t last = 0;
  while (true) {
    ThriftField field;
    KV_RETURN_IF_ERROR(reader.ReadFieldHeader(&last, &field));
    int32_t crc = 0;
    switch (field.type == kThriftStop ? -1 : field.id) {
      case -1:
        *header_size = reader.position();
        return out;
      case 1: KV_RETURN_IF_ERROR(reader.Read(field, &out.type)); break;
      case 2: KV_RETURN_IF_ERROR(reader.Read(field, &out.uncompressed_page_size)); break;
      case 3: KV_RETURN_IF_ERROR(reader.Read(field, &out.compressed_page_size)); break;
      case 4:
        KV_RETURN_IF_ERROR(reader.Read(field, &crc));
        out.crc = crc;
        break;
      case 5:
        KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftStruct));
        KV_RETURN_IF_ERROR(ParseDataPageHeader(reader, &out.data_page_header.emplace()));
        break;
      case 7:
        KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftStruct));
        KV_RETURN_IF_ERROR(
            ParseDictionaryPageHeader(reader, &out.dictionary_page_header.emplace()));
        break;
      case 8:
        KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftStruct));
        KV_RETURN_IF_ERROR(ParseDataPageHeaderV2(reader, &out.data_page_header_v2.emplace()));
        break;
      default: KV_RETURN_IF_ERROR(reader.Skip(field.type));
    }
  }
}

}  // namespace kvbench::parquet
