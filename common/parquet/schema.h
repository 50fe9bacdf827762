#pragma once

// The schema tree of a Parquet file, built from the footer's flattened SchemaElement list, with
// each node's maximum definition and repetition levels and the range of leaf columns under it.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/parquet/metadata.h"

namespace kvbench::parquet {

// Deepest schema nesting accepted (row assembly recurses once per level).
inline constexpr int kMaxSchemaDepth = 64;

struct SchemaNode {
  std::string name;
  std::string path;  // dotted from the root's children: "a.list.element"
  int32_t repetition = kRequired;
  bool is_leaf = false;
  int32_t physical_type = 0;
  int32_t type_length = 0;
  int32_t converted_type = -1;
  int32_t logical_type = kLogicalNone;
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  std::vector<int> children;  // indices into Schema::nodes()
  int first_leaf = 0;         // leaves under this node: [first_leaf, first_leaf + num_leaves)
  int num_leaves = 0;
  int leaf_index = -1;        // for leaves: the column's index
};

class Schema {
 public:
  static absl::StatusOr<Schema> Create(const std::vector<SchemaElement>& elements);

  const SchemaNode& root() const { return nodes_[0]; }
  const SchemaNode& node(int index) const { return nodes_[index]; }
  const std::vector<SchemaNode>& nodes() const { return nodes_; }
  // Node indices of the leaf columns, in column-chunk order.
  const std::vector<int>& leaves() const { return leaves_; }
  const SchemaNode& leaf(int column) const { return nodes_[leaves_[column]]; }

  // One line per node, indented: "optional group a (LIST)", "required int32 id".
  std::string ToString() const;

 private:
  absl::Status Build(const std::vector<SchemaElement>& elements, size_t* next, int parent,
                     int depth);

  std::vector<SchemaNode> nodes_;
  std::vector<int> leaves_;
};

}  // namespace kvbench::parquet
