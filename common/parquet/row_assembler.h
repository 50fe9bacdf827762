#pragma once

// Assembles the rows of one row group from its leaf columns' levels and values (Dremel record
// assembly), as JSON objects keyed by the root's field names:
//   struct (group)            → object of its fields
//   LIST, 3-level and legacy 2-level (repeated child named "array" / "<list>_tuple", or a
//   repeated primitive or multi-field group) → array
//   MAP / MAP_KEY_VALUE       → object; non-string keys are written as their JSON text
//   an unannotated repeated field → array
//   a value not defined (optional, null) → null; an empty list or map → [] / {}.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/parquet/column_chunk_reader.h"
#include "common/parquet/schema.h"
#include "common/parquet/value_decoder.h"

namespace kvbench::parquet {

class RowAssembler {
 public:
  // Checks that every column holds exactly `num_rows` rows.
  static absl::StatusOr<RowAssembler> Create(const Schema* schema, std::vector<ColumnData> columns,
                                             int64_t num_rows);

  int64_t num_rows() const { return num_rows_; }
  absl::StatusOr<Json> Assemble(int64_t row) const;

 private:
  // Level entries [begin, end) of each leaf column (indexed by leaf).
  struct Range {
    size_t begin = 0;
    size_t end = 0;
  };
  using Ranges = std::vector<Range>;

  RowAssembler(const Schema* schema, std::vector<ColumnData> columns, int64_t num_rows)
      : schema_(schema), columns_(std::move(columns)), num_rows_(num_rows) {}

  // A field of a parent that is present: null, a value, or (repeated) an array.
  absl::Status BuildField(int node, const Ranges& ranges, Json* out) const;
  // One present instance of `node`.
  absl::Status BuildInstance(int node, const Ranges& ranges, Json* out) const;
  absl::Status BuildList(int node, const Ranges& ranges, Json* out) const;
  absl::Status BuildMap(int node, const Ranges& ranges, Json* out) const;
  // Splits `ranges` into the instances of the repeated `node` (none when not defined).
  absl::Status SplitRepeated(int node, const Ranges& ranges, std::vector<Ranges>* out) const;
  // The definition level at the start of `node`'s first leaf range.
  absl::StatusOr<int16_t> FirstDefinition(int node, const Ranges& ranges) const;
  bool IsList(const SchemaNode& node) const;
  bool IsMap(const SchemaNode& node) const;

  const Schema* schema_;
  std::vector<ColumnData> columns_;
  int64_t num_rows_;
  std::vector<std::vector<size_t>> row_starts_;  // per leaf: entry index where each row starts
};

}  // namespace kvbench::parquet
