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
  if (type != kThriftStruct)
    return absl::InvalidArgumentError("corrupt Thrift metadata: expected a list of structs");
  for (uint32_t i = 0; i < size; ++i) KV_RETURN_IF_ERROR(parse_one());
  return absl::OkStatus();
}

// The LogicalType union: the id of its one set field.
absl::Status ParseLogicalType(Reader& reader, int32_t* id) {
  return reader.ForEachField([&](const ThriftField& field) {
    *id = field.id;
    return reader.Skip(field.type);
  });
}

absl::Status ParseSchemaElement(Reader& reader, SchemaElement* out) {
  return reader.ForEachField([&](const ThriftField& field) -> absl::Status {
    switch (field.id) {
      case 1:
        return reader.Read(field, &out->type);
      case 2:
        return reader.Read(field, &out->type_length);
      case 3:
        return reader.Read(field, &out->repetition_type);
      case 4:
        return reader.Read(field, &out->name);
      case 5:
        return reader.Read(field, &out->num_children);
      case 6:
        return reader.Read(field, &out->converted_type);
      case 10:
        KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftStruct));
        return ParseLogicalType(reader, &out->logical_type);
      default:
        return reader.Skip(field.type);
    }
  });
}

absl::Status ParseColumnMetaData(Reader& reader, ColumnMetaData* out) {
  return reader.ForEachField([&](const ThriftField& field) -> absl::Status {
    switch (field.id) {
      case 1:
        return reader.Read(field, &out->type);
      case 3:
        return reader.Read(field, &out->path_in_schema);
      case 4:
        return reader.Read(field, &out->codec);
      case 5:
        return reader.Read(field, &out->num_values);
      case 7:
        return reader.Read(field, &out->total_compressed_size);
      case 9:
        return reader.Read(field, &out->data_page_offset);
      case 11:
        return reader.Read(field, &out->dictionary_page_offset);
      default:
        return reader.Skip(field.type);
    }
  });
}

absl::Status ParseColumnChunk(Reader& reader, ColumnChunk* out) {
  return reader.ForEachField([&](const ThriftField& field) -> absl::Status {
    switch (field.id) {
      case 1:
        return reader.Read(field, &out->file_path);
      case 3:
        KV_RETURN_IF_ERROR(Reader::Expect(field, kThriftStruct));
        return ParseColumnMetaData(reader, &out->meta_data.emplace());
      case 8:
      case 9:
        out->encrypted = true;
        return reader.Skip(field.type);
      default:
        return reader.Skip(field.type);
    }
  });
}

absl::Status ParseRowGroup(Reader& reader, RowGroup* out) {
  return reader.ForEachField([&](const ThriftField& field) -> absl::Status {
    switch (field.id) {
      case 1:
        return ReadStructList(reader, field, [&] {
          out->columns.emplace_back();
          return ParseColumnChunk(reader, &out->columns.back());
        });
      case 3:
        return reader.Read(field, &out->num_rows);
      default:
        return reader.Skip(field.type);
    }
  });
}

absl::Status ParseFileMetaDataField(Reader& reader, const ThriftField& field, FileMetaData* out) {
  switch (field.id) {
    case 1:
      return reader.Read(field, &out->version);
    case 2:
      return ReadStructList(reader, field, [&] {
        out->schema.emplace_back();
        return ParseSchemaElement(reader, &out->schema.back());
      });
    case 3:
      return reader.Read(field, &out->num_rows);
    case 4:
      return ReadStructList(reader, field, [&] {
        out->row_groups.emplace_back();
        return ParseRowGroup(reader, &out->row_groups.back());
      });
    case 6:
      return reader.Read(field, &out->created_by);
    case 8:
      out->encrypted = true;
      return reader.Skip(field.type);
    default:
      return reader.Skip(field.type);
  }
}

}  // namespace

absl::StatusOr<FileMetaData> ParseFileMetaData(absl::string_view bytes) {
  Reader reader(bytes);
  FileMetaData out;
  KV_RETURN_IF_ERROR(reader.ForEachField(
      [&](const ThriftField& field) { return ParseFileMetaDataField(reader, field, &out); }));
  return out;
}

}  // namespace kvbench::parquet
