#include "controller/kvctl/print/result_columns.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/kvctl/print/results_table.h"
#include "controller/kvctl/verdict_gate.h"
#include "controller/results/validity.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/reflection.h"

namespace kvbench::kvctl {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

std::string ShortestDouble(double value) {
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return error == std::errc() ? std::string(buffer, end) : absl::StrCat(value);
}

// One scalar of `field` (index -1: singular).
std::string Scalar(const Message& message, const FieldDescriptor* field, int index) {
  const Reflection* r = message.GetReflection();
  const bool rep = index >= 0;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return ShortestDouble(rep ? r->GetRepeatedDouble(message, field, index)
                                : r->GetDouble(message, field));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return ShortestDouble(rep ? r->GetRepeatedFloat(message, field, index)
                                : r->GetFloat(message, field));
    case FieldDescriptor::CPPTYPE_INT32:
      return absl::StrCat(rep ? r->GetRepeatedInt32(message, field, index)
                              : r->GetInt32(message, field));
    case FieldDescriptor::CPPTYPE_INT64:
      return absl::StrCat(rep ? r->GetRepeatedInt64(message, field, index)
                              : r->GetInt64(message, field));
    case FieldDescriptor::CPPTYPE_UINT32:
      return absl::StrCat(rep ? r->GetRepeatedUInt32(message, field, index)
                              : r->GetUInt32(message, field));
    case FieldDescriptor::CPPTYPE_UINT64:
      return absl::StrCat(rep ? r->GetRepeatedUInt64(message, field, index)
                              : r->GetUInt64(message, field));
    case FieldDescriptor::CPPTYPE_BOOL:
      return (rep ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field))
                 ? "true"
                 : "false";
    case FieldDescriptor::CPPTYPE_ENUM:
      return (rep ? r->GetRepeatedEnum(message, field, index) : r->GetEnum(message, field))->name();
    case FieldDescriptor::CPPTYPE_STRING:
      return rep ? r->GetRepeatedString(message, field, index) : r->GetString(message, field);
    default:
      return "";
  }
}

// `prefix` + the field's name, except where the name alone would mislead: LMCache's hit rate is
// lookup-based (lookup hit / requested tokens; offload_served.h), so its column says so.
std::string ColumnName(const std::string& prefix, const FieldDescriptor* field) {
  if (prefix == "lmcache." && field->name() == "hit_rate") return "lmcache.lookup_hit_rate";
  return absl::StrCat(prefix, field->name());
}

void Flatten(const Message& message, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>* out) {
  const Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);  // set fields, in field-number order
  for (const FieldDescriptor* field : fields) {
    // Series are for JSON; the row's own columns already say which scenario it is.
    if (prefix.empty() && (field->name() == "series" || field->name() == "scenario_id" ||
                           field->name() == "tier" || field->name() == "concurrency")) {
      continue;
    }
    const std::string name = ColumnName(prefix, field);
    if (field->is_map()) {
      const FieldDescriptor* key = field->message_type()->map_key();
      const FieldDescriptor* value = field->message_type()->map_value();
      std::map<std::string, std::string> entries;  // sorted: map order is unspecified
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        const Message& entry = reflection->GetRepeatedMessage(message, field, i);
        entries[Scalar(entry, key, -1)] = Scalar(entry, value, -1);
      }
      for (const auto& [k, v] : entries) out->emplace_back(absl::StrCat(name, ".", k), v);
    } else if (field->is_repeated() && field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        Flatten(reflection->GetRepeatedMessage(message, field, i), absl::StrCat(name, ".", i, "."),
                out);
      }
    } else if (field->is_repeated()) {
      std::vector<std::string> items;
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        items.push_back(Scalar(message, field, i));
      }
      out->emplace_back(name, absl::StrJoin(items, "; "));
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      Flatten(reflection->GetMessage(message, field), name + ".", out);
    } else {
      out->emplace_back(name, Scalar(message, field, -1));
    }
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> FlattenResult(const v1::ScenarioResult& result) {
  std::vector<std::pair<std::string, std::string>> columns;
  Flatten(result, "", &columns);
  return columns;
}

void PrintResultsFullCsv(const v1::Job& job, std::ostream& out) {
  std::vector<std::string> headers = {"scenario_id",      "tier",     "concurrency",
                                      "repeat",           "agent_id", "state",
                                      "comparison_group", "verdict",  "error"};
  std::map<std::string, size_t> index;
  std::vector<std::map<std::string, std::string>> values;
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    std::map<std::string, std::string>& row = values.emplace_back();
    if (!status.has_result()) continue;
    for (auto& [column, text] : FlattenResult(status.result())) {
      if (index.emplace(column, headers.size()).second) headers.push_back(column);
      row[column] = std::move(text);
    }
  }
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < job.scenarios_size(); ++i) {
    const v1::ScenarioStatus& status = job.scenarios(i);
    std::vector<std::string> row = {
        status.scenario().scenario_id(),
        v1::Tier_Name(status.scenario().tier()),
        absl::StrCat(status.scenario().concurrency()),
        absl::StrCat(std::max(status.scenario().repeat(), 1)),
        status.agent_id(),
        ScenarioStateName(status.state()),
        results::ComparisonGroupOf(status.scenario()),
        VerdictOfGroup(job, results::ComparisonGroupOf(status.scenario())),
        status.error()};
    row.resize(headers.size());
    for (const auto& [column, text] : values[i]) row[index.at(column)] = text;
    rows.push_back(std::move(row));
  }
  PrintCsv(headers, rows, out);
}

}  // namespace kvbench::kvctl
