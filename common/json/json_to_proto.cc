// JsonToProto: JSON → protobuf through reflection, collecting every problem with its field path.
// protobuf's own JsonStringToMessage stops at the first error; people fixing a spec want all.

#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json/proto_json.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/reflection.h"
#include "google/protobuf/util/json_util.h"

namespace kvbench {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using Json = nlohmann::ordered_json;

std::string JoinPath(const std::string& parent, absl::string_view name) {
  return parent.empty() ? std::string(name) : absl::StrCat(parent, ".", name);
}

std::string IndexPath(const std::string& parent, size_t index) {
  return absl::StrCat(parent, "[", index, "]");
}

// The prefix protobuf's style guide puts on an enum's value names: the enum's name in
// UPPER_SNAKE_CASE and "_" ("OFFLOAD_ROUTING_" for OffloadRouting). People write the value
// without it ("STICKY"), as they write the unprefixed enums' values ("GPU").
std::string EnumValuePrefix(const EnumDescriptor* type) {
  std::string prefix;
  for (char c : type->name()) {
    if (absl::ascii_isupper(static_cast<unsigned char>(c)) && !prefix.empty()) prefix += '_';
    prefix += absl::ascii_toupper(static_cast<unsigned char>(c));
  }
  return prefix + "_";
}

// A value's name as people write it: without EnumValuePrefix when it has it.
std::string ShortValueName(const EnumValueDescriptor* value) {
  const std::string prefix = EnumValuePrefix(value->type());
  const std::string& name = value->name();
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

// Enums whose documented spelling is lowercase (docs/job-spec.md: "engine": "sim" or "vllm").
bool WrittenLowercase(const EnumDescriptor* type) {
  return type->full_name() == "kvbench.v1.Engine";
}

// The value `name` spells exactly as kvbench prints it (SIM, OFFLOAD_ROUTING_STICKY), without
// its enum's prefix (STICKY), or in the lowercase an enum is documented in ("sim"); nullptr for
// any other spelling ("gpu", "Sticky", "1"): specs are compared and stored, one spelling each.
const EnumValueDescriptor* FindCanonicalValue(const EnumDescriptor* type, const std::string& name) {
  for (int i = 0; i < type->value_count(); ++i) {
    const EnumValueDescriptor* value = type->value(i);
    const std::string short_name = ShortValueName(value);
    if (name == value->name() || name == short_name ||
        (WrittenLowercase(type) && name == absl::AsciiStrToLower(short_name))) {
      return value;
    }
  }
  return nullptr;
}

// `value` is no value of `type`: the spellings docs/job-spec.md documents (for `engine`,
// the lowercase it is written in, not the capitals alone, which kvctl prints and takes back).
std::string UnknownEnumValueMessage(const EnumDescriptor* type, const Json& value) {
  std::string documented;
  std::string printed;
  for (int i = 0; i < type->value_count(); ++i) {
    if (type->value(i)->number() == 0) continue;
    const std::string name = ShortValueName(type->value(i));
    const std::string separator = documented.empty() ? "" : ", ";
    absl::StrAppend(&printed, separator, name);
    absl::StrAppend(&documented, separator,
                    WrittenLowercase(type) ? absl::AsciiStrToLower(name) : name);
  }
  std::string message = absl::StrCat(value.dump(), " is not one of ", documented);
  if (!value.is_string()) return message;
  if (!WrittenLowercase(type)) return absl::StrCat(message, " (spelled exactly so)");
  return absl::StrCat(message, " (spelled exactly so, or as kvctl prints them: ", printed, ")");
}

const char* JsonTypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

bool IsWellKnownType(const Descriptor* descriptor) {
  return descriptor->file()->name().rfind("google/protobuf/", 0) == 0;
}

// protobuf 3.21's Descriptor has no lookup by json_name ("tensorParallelSize").
const FieldDescriptor* FindFieldByJsonName(const Descriptor* descriptor, const std::string& key) {
  for (int i = 0; i < descriptor->field_count(); ++i) {
    if (descriptor->field(i)->json_name() == key) return descriptor->field(i);
  }
  return nullptr;
}

class Converter {
 public:
  explicit Converter(FieldErrors* errors) : errors_(errors) {}

  void ConvertMessage(const Json& json, const std::string& path, Message* message) {
    const Descriptor* descriptor = message->GetDescriptor();
    if (IsWellKnownType(descriptor)) {
      ConvertWellKnown(json, path, message);
      return;
    }
    if (!json.is_object()) {
      errors_->Add(path, absl::StrCat("must be an object, not ", JsonTypeName(json)));
      return;
    }
    for (const auto& [key, value] : json.items()) {
      const FieldDescriptor* field = descriptor->FindFieldByName(key);
      if (field == nullptr) field = FindFieldByJsonName(descriptor, key);
      std::string field_path = JoinPath(path, key);
      if (field == nullptr) {
        errors_->Add(field_path, absl::StrCat("unknown field (", descriptor->name(),
                                              " has no field \"", key, "\")"));
        continue;
      }
      if (value.is_null()) continue;  // null means "not set", as in protobuf's JSON mapping
      ConvertField(value, field_path, field, message);
    }
  }

 private:
  void ConvertField(const Json& value, const std::string& path, const FieldDescriptor* field,
                    Message* message) {
    if (field->is_map()) {
      ConvertMap(value, path, field, message);
    } else if (field->is_repeated()) {
      if (!value.is_array()) {
        errors_->Add(path, absl::StrCat("must be an array, not ", JsonTypeName(value)));
        return;
      }
      for (size_t i = 0; i < value.size(); ++i) {
        ConvertValue(value[i], IndexPath(path, i), field, message);
      }
    } else {
      ConvertValue(value, path, field, message);
    }
  }

  void ConvertMap(const Json& value, const std::string& path, const FieldDescriptor* field,
                  Message* message) {
    if (!value.is_object()) {
      errors_->Add(path, absl::StrCat("must be an object, not ", JsonTypeName(value)));
      return;
    }
    const Descriptor* entry_type = field->message_type();
    const FieldDescriptor* key_field = entry_type->FindFieldByNumber(1);
    const FieldDescriptor* value_field = entry_type->FindFieldByNumber(2);
    const Reflection* reflection = message->GetReflection();
    for (const auto& [key, item] : value.items()) {
      std::string item_path = JoinPath(path, key);
      Message* entry = reflection->AddMessage(message, field);
      ConvertValue(Json(key), item_path, key_field, entry);
      if (!item.is_null()) ConvertValue(item, item_path, value_field, entry);
    }
  }

  // Sets (or, for repeated fields, adds) one value of `field`.
  void ConvertValue(const Json& value, const std::string& path, const FieldDescriptor* field,
                    Message* message) {
    const Reflection* reflection = message->GetReflection();
    const bool repeated = field->is_repeated();
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        Message* child = repeated ? reflection->AddMessage(message, field)
                                  : reflection->MutableMessage(message, field);
        ConvertMessage(value, path, child);
        return;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        if (!value.is_string()) {
          errors_->Add(path, absl::StrCat("must be a string, not ", JsonTypeName(value)));
          return;
        }
        std::string text = value.get<std::string>();
        if (field->type() == FieldDescriptor::TYPE_BYTES) {
          errors_->Add(path, "bytes fields cannot be set from JSON here");
          return;
        }
        repeated ? reflection->AddString(message, field, text)
                 : reflection->SetString(message, field, text);
        return;
      }
      case FieldDescriptor::CPPTYPE_BOOL: {
        if (!value.is_boolean()) {
          errors_->Add(path, absl::StrCat("must be true or false, not ", JsonTypeName(value)));
          return;
        }
        repeated ? reflection->AddBool(message, field, value.get<bool>())
                 : reflection->SetBool(message, field, value.get<bool>());
        return;
      }
      case FieldDescriptor::CPPTYPE_ENUM:
        ConvertEnum(value, path, field, message);
        return;
      case FieldDescriptor::CPPTYPE_DOUBLE:
      case FieldDescriptor::CPPTYPE_FLOAT:
        ConvertFloating(value, path, field, message);
        return;
      default:
        ConvertInteger(value, path, field, message);
        return;
    }
  }

  void ConvertEnum(const Json& value, const std::string& path, const FieldDescriptor* field,
                   Message* message) {
    const auto* enum_type = field->enum_type();
    const EnumValueDescriptor* found = nullptr;
    if (value.is_string()) found = FindCanonicalValue(enum_type, value.get<std::string>());
    if (found == nullptr || found->number() == 0) {
      errors_->Add(path, UnknownEnumValueMessage(enum_type, value));
      return;
    }
    field->is_repeated() ? message->GetReflection()->AddEnum(message, field, found)
                         : message->GetReflection()->SetEnum(message, field, found);
  }

  void ConvertFloating(const Json& value, const std::string& path, const FieldDescriptor* field,
                       Message* message) {
    double number = 0;
    if (value.is_number()) {
      number = value.get<double>();
    } else if (!value.is_string() || !absl::SimpleAtod(value.get<std::string>(), &number)) {
      errors_->Add(path, absl::StrCat("must be a number, not ", JsonTypeName(value)));
      return;
    }
    const Reflection* reflection = message->GetReflection();
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT) {
      if (std::isfinite(number) && std::fabs(number) > std::numeric_limits<float>::max()) {
        errors_->Add(path, absl::StrCat(number, " is out of range for a float"));
        return;
      }
      float narrowed = static_cast<float>(number);
      field->is_repeated() ? reflection->AddFloat(message, field, narrowed)
                           : reflection->SetFloat(message, field, narrowed);
    } else {
      field->is_repeated() ? reflection->AddDouble(message, field, number)
                           : reflection->SetDouble(message, field, number);
    }
  }

  // Reads an integral JSON value: a number, or a decimal string (as proto JSON writes 64-bit
  // integers). The caller range-checks it for the field type.
  bool ReadInteger(const Json& value, const std::string& path, int64_t* as_signed,
                   uint64_t* as_unsigned, bool* is_negative) {
    if (value.is_number_unsigned()) {
      *as_unsigned = value.get<uint64_t>();
      *is_negative = false;
      return true;
    }
    if (value.is_number_integer()) {
      *as_signed = value.get<int64_t>();
      *is_negative = *as_signed < 0;
      if (!*is_negative) *as_unsigned = static_cast<uint64_t>(*as_signed);
      return true;
    }
    if (value.is_number_float()) {
      double number = value.get<double>();
      if (std::trunc(number) != number || std::fabs(number) > 9.0e18) {
        errors_->Add(path, absl::StrCat("must be a whole number, not ", value.dump()));
        return false;
      }
      *as_signed = static_cast<int64_t>(number);
      *is_negative = number < 0;
      if (!*is_negative) *as_unsigned = static_cast<uint64_t>(number);
      return true;
    }
    if (value.is_string()) {
      std::string text = value.get<std::string>();
      if (absl::SimpleAtoi(text, as_signed)) {
        *is_negative = *as_signed < 0;
        if (!*is_negative) *as_unsigned = static_cast<uint64_t>(*as_signed);
        return true;
      }
      if (absl::SimpleAtoi(text, as_unsigned)) {
        *is_negative = false;
        return true;
      }
    }
    errors_->Add(path, absl::StrCat("must be a whole number, not ", JsonTypeName(value)));
    return false;
  }

  void ConvertInteger(const Json& value, const std::string& path, const FieldDescriptor* field,
                      Message* message) {
    int64_t as_signed = 0;
    uint64_t as_unsigned = 0;
    bool negative = false;
    if (!ReadInteger(value, path, &as_signed, &as_unsigned, &negative)) return;
    const Reflection* reflection = message->GetReflection();
    const bool repeated = field->is_repeated();
    auto out_of_range = [&](const char* type) {
      errors_->Add(path, absl::StrCat(value.dump(), " is out of range for ", type));
    };
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        if (negative ? as_signed < std::numeric_limits<int32_t>::min()
                     : as_unsigned > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
          return out_of_range("a 32-bit integer");
        }
        {
          auto narrowed =
              static_cast<int32_t>(negative ? as_signed : static_cast<int64_t>(as_unsigned));
          repeated ? reflection->AddInt32(message, field, narrowed)
                   : reflection->SetInt32(message, field, narrowed);
        }
        return;
      case FieldDescriptor::CPPTYPE_INT64:
        if (!negative && as_unsigned > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return out_of_range("a 64-bit integer");
        }
        {
          int64_t widened = negative ? as_signed : static_cast<int64_t>(as_unsigned);
          repeated ? reflection->AddInt64(message, field, widened)
                   : reflection->SetInt64(message, field, widened);
        }
        return;
      case FieldDescriptor::CPPTYPE_UINT32:
        if (negative || as_unsigned > std::numeric_limits<uint32_t>::max()) {
          return out_of_range("an unsigned 32-bit integer");
        }
        repeated ? reflection->AddUInt32(message, field, static_cast<uint32_t>(as_unsigned))
                 : reflection->SetUInt32(message, field, static_cast<uint32_t>(as_unsigned));
        return;
      case FieldDescriptor::CPPTYPE_UINT64:
        if (negative) return out_of_range("an unsigned 64-bit integer");
        repeated ? reflection->AddUInt64(message, field, as_unsigned)
                 : reflection->SetUInt64(message, field, as_unsigned);
        return;
      default:
        errors_->Add(path, "has a type this loader does not support");
    }
  }

  // Timestamp, Duration, wrappers, Struct...: protobuf's own JSON mapping handles them.
  void ConvertWellKnown(const Json& json, const std::string& path, Message* message) {
    std::string text = json.dump();
    auto status = google::protobuf::util::JsonStringToMessage(text, message);
    if (!status.ok()) errors_->Add(path, std::string(status.message()));
  }

  FieldErrors* errors_;
};

}  // namespace

FieldErrors JsonToProto(const nlohmann::ordered_json& json, google::protobuf::Message* message) {
  FieldErrors errors;
  message->Clear();
  Converter(&errors).ConvertMessage(json, "", message);
  return errors;
}

}  // namespace kvbench
