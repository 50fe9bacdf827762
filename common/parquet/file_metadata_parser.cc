// FileMetaData and what it holds: SchemaElement, RowGroup, ColumnChunk, ColumnMetaData.
#include "common/parquet/metadata_parser.h"
#include "common/parquet/thrift_compact_reader.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet {
namespace {

using Reader = ThriftCompactReader;

// Calls parse(i) for each element of a list of structs.
template <typename ParseOne>
absl::Status ReadStructList(Reader& reader, const ThriftField& field, ParseOne parse_one) {
  KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftList));
  uint8_t type = 0;
  uint32_t size = 0;
  KV_RETURN_IF_ERROR(reader.ReadListHeader(&type, &size));
  if (type != kThriftStruct) return absl::InvalidArgumentError("corrupt Thrift metadata: expected a list of structs");
  for (uint32_t i = 0; i < size; ++i) KV_RETURN_IF_ERROR(parse_one());
  return absl::OkStatus();
}

// The LogicalType union: the id of its one set field.
absl::Status ParseLogicalType(Reader& reader, int32_t* id) {
  int16_t last = 0;
  while (true) {
    ThriftField field;
    KV_RETURN_IF_ERROR(reader.ReadFieldHeader(&last, &field));
    if (field.type == kThriftStop) return absl::OkStatus();
    *id = field.id;
    KV_RETURN_IF_ERROR(reader.Skip(field.type));
  }
}

absl::Status ParseSchemaElement(Reader& reader, SchemaElement* out) {
  int16_t last = 0;
  while (true) {
    ThriftField field;
    KV_RETURN_IF_ERROR(reader.ReadFieldHeader(&last, &field));
    int32_t value = 0;
    switch (field.type == kThriftStop ? -1 : field.id) {
      case -1:
        return absl::OkStatus();
      case 1:
        KV_RETURN_IF_ERROR(reader.Read(field, &value));
        out->type = value;
        break;
      case 2:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->type_length));
        break;
      case 3:
        KV_RETURN_IF_ERROR(reader.Read(field, &value));
        out->repetition_type = value;
        break;
      case 4:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->name));
        break;
      case 5:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->num_children));
        break;
      case 6:
        KV_RETURN_IF_ERROR(reader.Read(field, &value));
        out->converted_type = value;
        break;
      case 10:
        KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftStruct));
        KV_RETURN_IF_ERROR(ParseLogicalType(reader, &out->logical_type));
        break;
      default:
        KV_RETURN_IF_ERROR(reader.Skip(field.type));
    }
  }
}

absl::Status ParseColumnMetaData(Reader& reader, ColumnMetaData* out) {
  int16_t last = 0;
  while (true) {
    ThriftField field;
    KV_RETURN_IF_ERROR(reader.ReadFieldHeader(&last, &field));
    int64_t value = 0;
    switch (field.type == kThriftStop ? -1 : field.id) {
      case -1:
        return absl::OkStatus();
      case 1:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->type));
        break;
      case 3:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->path_in_schema));
        break;
      case 4:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->codec));
        break;
      case 5:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->num_values));
        break;
      case 7:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->total_compressed_size));
        break;
      case 9:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->data_page_offset));
        break;
      case 11:
        KV_RETURN_IF_ERROR(reader.Read(field, &value));
        out->dictionary_page_offset = value;
        break;
      default:
        KV_RETURN_IF_ERROR(reader.Skip(field.type));
    }
  }
}

absl::Status ParseColumnChunk(Reader& reader, ColumnChunk* out) {
  int16_t last = 0;
  while (true) {
    ThriftField field;
    KV_RETURN_IF_ERROR(reader.ReadFieldHeader(&last, &field));
    switch (field.type == kThriftStop ? -1 : field.id) {
      case -1:
        return absl::OkStatus();
      case 1:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->file_path));
        break;
      case 3:
        KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftStruct));
        out->meta_data.emplace();
        KV_RETURN_IF_ERROR(ParseColumnMetaData(reader, &*out->meta_data));
        break;
      case 8:
      case 9:
        out->encrypted = true;
        KV_RETURN_IF_ERROR(reader.Skip(field.type));
        break;
      default:
        KV_RETURN_IF_ERROR(reader.Skip(field.type));
    }
  }
}

absl::Status ParseRowGroup(Reader& reader, RowGroup* out) {
  int16_t last = 0;
  while (true) {
    ThriftField field;
    KV_RETURN_IF_ERROR(reader.ReadFieldHeader(&last, &field));
    switch (field.type == kThriftStop ? -1 : field.id) {
      case -1:
        return absl::OkStatus();
      case 1:
        KV_RETURN_IF_ERROR(ReadStructList(reader, field, [&] {
          out->columns.emplace_back();
          return ParseColumnChunk(reader, &out->columns.back());
        }));
        break;
      case 3:
        KV_RETURN_IF_ERROR(reader.Read(field, &out->num_rows));
        break;
      default:
        KV_RETURN_IF_ERROR(reader.Skip(field.type));
    }
  }
}

}  // namespace

absl::StatusOr<FileMetaData> ParseFileMetaData(absl::string_view bytes) {
  Reader reader(bytes);
  FileMetaData out;
  int16_t last = 0;
  while (true) {
    ThriftField field;
    KV_RETURN_IF_ERROR(reader.ReadFieldHeader(&last, &field));
    switch (field.type == kThriftStop ? -1 : field.id) {
      case -1:
        return out;
      case 1:
        KV_RETURN_IF_ERROR(reader.Read(field, &out.version));
        break;
      case 2:
        KV_RETURN_IF_ERROR(ReadStructList(reader, field, [&] {
          out.schema.emplace_back();
          return ParseSchemaElement(reader, &out.schema.back());
        }));
        break;
      case 3:
        KV_RETURN_IF_ERROR(reader.Read(field, &out.num_rows));
        break;
      case 4:
        KV_RETURN_IF_ERROR(ReadStructList(reader, field, [&] {
          out.row_groups.emplace_back();
          return ParseRowGroup(reader, &out.row_groups.back());
        }));
        break;
      case 6:
        KV_RETURN_IF_ERROR(reader.Read(field, &out.created_by));
        break;
      case 8:
        out.encrypted = true;
        KV_RETURN_IF_ERROR(reader.Skip(field.type));
        break;
      default:
        KV_RETURN_IF_ERROR(reader.Skip(field.type));
    }
  }
}

}  // namespace kvbench::parquet
