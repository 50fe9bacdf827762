#include "common/parquet/row_assembler.h"

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet {
namespace {

absl::Status CorruptLevels(const SchemaNode& node, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("corrupt levels under ", node.path.empty() ? "the root" : node.path, ": ", what));
}

}  // namespace

absl::StatusOr<RowAssembler> RowAssembler::Create(const Schema* schema,
                                                  std::vector<ColumnData> columns,
                                                  int64_t num_rows) {
  RowAssembler assembler(schema, std::move(columns), num_rows);
  for (size_t leaf = 0; leaf < assembler.columns_.size(); ++leaf) {
    const ColumnData& column = assembler.columns_[leaf];
    std::vector<size_t> starts;
    for (size_t i = 0; i < column.repetition_levels.size(); ++i) {
      if (column.repetition_levels[i] == 0) starts.push_back(i);
    }
    if (!column.repetition_levels.empty() && column.repetition_levels[0] != 0) {
      return CorruptLevels(schema->leaf(static_cast<int>(leaf)), "first repetition level is not 0");
    }
    if (static_cast<int64_t>(starts.size()) != num_rows) {
      return CorruptLevels(schema->leaf(static_cast<int>(leaf)),
                           absl::StrCat(starts.size(), " rows where the row group has ", num_rows));
    }
    starts.push_back(column.repetition_levels.size());
    assembler.row_starts_.push_back(std::move(starts));
  }
  return assembler;
}

absl::StatusOr<Json> RowAssembler::Assemble(int64_t row) const {
  Ranges ranges(columns_.size());
  for (size_t leaf = 0; leaf < columns_.size(); ++leaf) {
    ranges[leaf] = {row_starts_[leaf][row], row_starts_[leaf][row + 1]};
  }
  Json out = Json::object();
  for (int child : schema_->root().children) {
    Json value;
    KV_RETURN_IF_ERROR(BuildField(child, ranges, &value));
    out[schema_->node(child).name] = std::move(value);
  }
  return out;
}

absl::StatusOr<int16_t> RowAssembler::FirstDefinition(int node, const Ranges& ranges) const {
  const SchemaNode& n = schema_->node(node);
  if (n.num_leaves == 0) return CorruptLevels(n, "group without leaf columns");
  const Range& range = ranges[n.first_leaf];
  if (range.begin >= range.end) return CorruptLevels(n, "no level entry where one is due");
  return columns_[n.first_leaf].definition_levels[range.begin];
}

absl::Status RowAssembler::BuildField(int node, const Ranges& ranges, Json* out) const {
  const SchemaNode& n = schema_->node(node);
  if (n.repetition == kRepeated) {
    std::vector<Ranges> instances;
    KV_RETURN_IF_ERROR(SplitRepeated(node, ranges, &instances));
    *out = Json::array();
    for (const Ranges& instance : instances) {
      Json value;
      KV_RETURN_IF_ERROR(BuildInstance(node, instance, &value));
      out->push_back(std::move(value));
    }
    return absl::OkStatus();
  }
  KV_ASSIGN_OR_RETURN(int16_t definition, FirstDefinition(node, ranges));
  if (definition < n.max_definition_level) {
    *out = nullptr;
    return absl::OkStatus();
  }
  return BuildInstance(node, ranges, out);
}

absl::Status RowAssembler::BuildInstance(int node, const Ranges& ranges, Json* out) const {
  const SchemaNode& n = schema_->node(node);
  if (n.is_leaf) {
    const Range& range = ranges[n.leaf_index];
    if (range.end - range.begin != 1) return CorruptLevels(n, "repeated entries in a single value");
    *out = columns_[n.leaf_index].values[range.begin];
    return absl::OkStatus();
  }
  if (IsList(n)) return BuildList(node, ranges, out);
  if (IsMap(n)) return BuildMap(node, ranges, out);
  *out = Json::object();
  for (int child : n.children) {
    Json value;
    KV_RETURN_IF_ERROR(BuildField(child, ranges, &value));
    (*out)[schema_->node(child).name] = std::move(value);
  }
  return absl::OkStatus();
}

bool RowAssembler::IsList(const SchemaNode& n) const {
  return (n.converted_type == kConvertedList || n.logical_type == kLogicalList) &&
         n.children.size() == 1 && schema_->node(n.children[0]).repetition == kRepeated;
}

bool RowAssembler::IsMap(const SchemaNode& n) const {
  if (n.converted_type != kConvertedMap && n.converted_type != kConvertedMapKeyValue &&
      n.logical_type != kLogicalMap) {
    return false;
  }
  if (n.children.size() != 1) return false;
  const SchemaNode& entry = schema_->node(n.children[0]);
  return entry.repetition == kRepeated && !entry.is_leaf &&
         (entry.children.size() == 1 || entry.children.size() == 2);
}

absl::Status RowAssembler::BuildList(int node, const Ranges& ranges, Json* out) const {
  const SchemaNode& list = schema_->node(node);
  const int repeated = list.children[0];
  const SchemaNode& r = schema_->node(repeated);
  // The Parquet spec's backward-compatibility rules for 2-level lists.
  const bool two_level = r.is_leaf || r.children.size() > 1 || r.name == "array" ||
                         r.name == list.name + "_tuple";
  std::vector<Ranges> instances;
  KV_RETURN_IF_ERROR(SplitRepeated(repeated, ranges, &instances));
  *out = Json::array();
  for (const Ranges& instance : instances) {
    Json value;
    if (two_level) {
      KV_RETURN_IF_ERROR(BuildInstance(repeated, instance, &value));
    } else {
      KV_RETURN_IF_ERROR(BuildField(r.children[0], instance, &value));
    }
    out->push_back(std::move(value));
  }
  return absl::OkStatus();
}

absl::Status RowAssembler::BuildMap(int node, const Ranges& ranges, Json* out) const {
  const int entry = schema_->node(node).children[0];
  const SchemaNode& e = schema_->node(entry);
  std::vector<Ranges> instances;
  KV_RETURN_IF_ERROR(SplitRepeated(entry, ranges, &instances));
  *out = Json::object();
  for (const Ranges& instance : instances) {
    Json key, value;
    KV_RETURN_IF_ERROR(BuildField(e.children[0], instance, &key));
    if (e.children.size() == 2) KV_RETURN_IF_ERROR(BuildField(e.children[1], instance, &value));
    const std::string name = key.is_string() ? key.get<std::string>()
                                             : key.dump(-1, ' ', false, Json::error_handler_t::replace);
    (*out)[name] = std::move(value);
  }
  return absl::OkStatus();
}

absl::Status RowAssembler::SplitRepeated(int node, const Ranges& ranges,
                                         std::vector<Ranges>* out) const {
  const SchemaNode& n = schema_->node(node);
  out->clear();
  KV_ASSIGN_OR_RETURN(int16_t definition, FirstDefinition(node, ranges));
  if (definition < n.max_definition_level) return absl::OkStatus();  // empty (or null parent)
  for (int leaf = n.first_leaf; leaf < n.first_leaf + n.num_leaves; ++leaf) {
    const Range& range = ranges[leaf];
    const ColumnData& column = columns_[leaf];
    if (range.begin >= range.end) return CorruptLevels(n, "no level entry where one is due");
    size_t instance = 0;
    size_t start = range.begin;
    for (size_t i = range.begin + 1; i <= range.end; ++i) {
      if (i < range.end && column.repetition_levels[i] > n.max_repetition_level) continue;
      if (leaf == n.first_leaf) {
        out->emplace_back(ranges);
      } else if (instance >= out->size()) {
        return CorruptLevels(n, "columns disagree on the number of repeated values");
      }
      if (column.definition_levels[start] < n.max_definition_level) {
        return CorruptLevels(n, "undefined entry inside a repeated field");
      }
      (*out)[instance++][leaf] = {start, i};
      start = i;
    }
    if (instance != out->size())
      return CorruptLevels(n, "columns disagree on the number of values");
  }
  return absl::OkStatus();
}

}  // namespace kvbench::parquet
