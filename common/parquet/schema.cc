#include "common/parquet/schema.h"

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet {
namespace {

absl::Status BadSchema(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("corrupt Parquet schema: ", what));
}

const char* RepetitionName(int32_t repetition) {
  return repetition == kRequired ? "required" : repetition == kOptional ? "optional" : "repeated";
}

}  // namespace

absl::StatusOr<Schema> Schema::Create(const std::vector<SchemaElement>& elements) {
  if (elements.empty()) return BadSchema("no root element");
  Schema schema;
  SchemaNode root;
  root.name = elements[0].name;
  schema.nodes_.push_back(root);
  if (elements[0].num_children < 0) return BadSchema("negative child count");
  size_t next = 1;
  for (int32_t i = 0; i < elements[0].num_children; ++i) {
    KV_RETURN_IF_ERROR(schema.Build(elements, &next, 0, 1));
  }
  if (next != elements.size()) return BadSchema("elements left over after the tree");
  schema.nodes_[0].num_leaves = static_cast<int>(schema.leaves_.size());
  return schema;
}

absl::Status Schema::Build(const std::vector<SchemaElement>& elements, size_t* next, int parent,
                           int depth) {
  if (depth > kMaxSchemaDepth) return BadSchema("nested too deep");
  if (*next >= elements.size()) return BadSchema("fewer elements than num_children says");
  const SchemaElement& element = elements[(*next)++];
  SchemaNode node;
  node.name = element.name;
  node.path = parent == 0 ? element.name : absl::StrCat(nodes_[parent].path, ".", element.name);
  node.repetition = element.repetition_type.value_or(kRequired);
  if (node.repetition < kRequired || node.repetition > kRepeated) {
    return BadSchema(absl::StrCat("bad repetition of ", node.path));
  }
  node.converted_type = element.converted_type.value_or(-1);
  node.logical_type = element.logical_type;
  node.max_definition_level = static_cast<int16_t>(
      nodes_[parent].max_definition_level + (node.repetition != kRequired ? 1 : 0));
  node.max_repetition_level = static_cast<int16_t>(
      nodes_[parent].max_repetition_level + (node.repetition == kRepeated ? 1 : 0));
  node.first_leaf = static_cast<int>(leaves_.size());
  if (element.num_children < 0) return BadSchema("negative child count");
  node.is_leaf = element.num_children == 0;
  if (node.is_leaf) {
    if (!element.type.has_value() || *element.type < kBoolean || *element.type > kFixedLenByteArray) {
      return BadSchema(absl::StrCat("leaf ", node.path, " has no valid physical type"));
    }
    node.physical_type = *element.type;
    node.type_length = element.type_length;
    if (node.physical_type == kFixedLenByteArray && node.type_length < 0) {
      return BadSchema(absl::StrCat("negative type_length of ", node.path));
    }
  }
  const int index = static_cast<int>(nodes_.size());
  nodes_.push_back(node);
  nodes_[parent].children.push_back(index);
  if (node.is_leaf) {
    nodes_[index].leaf_index = static_cast<int>(leaves_.size());
    leaves_.push_back(index);
  }
  for (int32_t i = 0; i < element.num_children; ++i) {
    KV_RETURN_IF_ERROR(Build(elements, next, index, depth + 1));
  }
  nodes_[index].num_leaves = static_cast<int>(leaves_.size()) - nodes_[index].first_leaf;
  return absl::OkStatus();
}

std::string Schema::ToString() const {
  std::string out;
  struct Frame {
    int node;
    int depth;
  };
  std::vector<Frame> stack = {{0, 0}};
  while (!stack.empty()) {
    const Frame frame = stack.back();
    stack.pop_back();
    const SchemaNode& n = nodes_[frame.node];
    out.append(2 * frame.depth, ' ');
    if (frame.node == 0) {
      absl::StrAppend(&out, "message ", n.name, "\n");
    } else {
      absl::StrAppend(&out, RepetitionName(n.repetition), " ",
                      n.is_leaf ? PhysicalTypeName(n.physical_type) : "group", " ", n.name);
      if (n.converted_type == kConvertedList || n.logical_type == kLogicalList) out += " (LIST)";
      if (n.converted_type == kConvertedMap || n.logical_type == kLogicalMap) out += " (MAP)";
      if (n.converted_type == kConvertedUtf8 || n.logical_type == kLogicalString) out += " (STRING)";
      out += "\n";
    }
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) {
      stack.push_back({*it, frame.depth + 1});
    }
  }
  return out;
}

}  // namespace kvbench::parquet
