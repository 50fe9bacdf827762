#include "agent/telemetry/amd_smi_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace kvbench::telemetry {
namespace {

using Json = nlohmann::json;

// A unit name (upper case; "" = a bare number) and how many of the target unit it is.
using UnitTable = std::initializer_list<std::pair<const char*, double>>;
constexpr UnitTable kWatts = {{"", 1.0}, {"W", 1.0}, {"MW", 1e-3}, {"UW", 1e-6}};
constexpr UnitTable kPercent = {{"", 1.0}, {"%", 1.0}};
// Bytes per unit; AMD's "MB" (the default) are MiB: amdsmi_get_gpu_vram_usage() shifts by 20.
constexpr UnitTable kBytes = {{"", 1 << 20},   {"B", 1},         {"KB", 1 << 10}, {"KIB", 1 << 10},
                              {"MB", 1 << 20}, {"MIB", 1 << 20}, {"GB", 1 << 30}, {"GIB", 1 << 30}};
// How much of a tool's output an error quotes.
constexpr size_t kQuotedOutputChars = 200;

// Tolerates warnings printed before the document.
absl::StatusOr<Json> ParseDocument(absl::string_view text, absl::string_view tool) {
  const size_t start = text.find_first_of("[{");
  Json json = start == absl::string_view::npos
                  ? Json(Json::value_t::discarded)
                  : Json::parse(text.begin() + start, text.end(), nullptr, false);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError(
        absl::StrCat(tool, " output is not JSON: \"", text.substr(0, kQuotedOutputChars), "\""));
  }
  return json;
}

const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::optional<double> ToNumber(const Json& json) {
  if (json.is_number()) return json.get<double>();
  double value = 0;
  if (json.is_string() && absl::SimpleAtod(json.get_ref<const std::string&>(), &value)) {
    return value;
  }
  return std::nullopt;
}

// The first of `keys` in `section` as a number in the target unit of `units`: a number, a numeric
// string, or {"value": ..., "unit": ...}. nullopt, with a note in `errors`, when no key is there,
// the value is not a number ("N/A") or the unit is unknown.
std::optional<double> ReadQuantity(const Json* section, std::initializer_list<const char*> keys,
                                   const UnitTable& units, const char* field,
                                   std::vector<std::string>* errors) {
  const Json* value = nullptr;
  const char* found_key = "";
  for (const char* key : keys) {
    if (section != nullptr && (value = Member(*section, key)) != nullptr) {
      found_key = key;
      break;
    }
  }
  if (value == nullptr) {
    errors->push_back(absl::StrCat(field, ": no ", *keys.begin(), " in the output"));
    return std::nullopt;
  }
  std::string unit;
  const Json* number = value;
  if (value->is_object()) {
    number = Member(*value, "value");
    const Json* unit_json = Member(*value, "unit");
    if (unit_json != nullptr && unit_json->is_string()) {
      unit = absl::AsciiStrToUpper(unit_json->get<std::string>());
    }
  }
  std::optional<double> amount = number != nullptr ? ToNumber(*number) : std::nullopt;
  if (!amount) {
    errors->push_back(absl::StrCat(field, ": ", found_key, " is ",
                                   number != nullptr ? number->dump() : value->dump()));
    return std::nullopt;
  }
  for (const auto& [name, scale] : units) {
    if (unit == name) return *amount * scale;
  }
  errors->push_back(absl::StrCat(field, ": unknown unit \"", unit, "\" of ", found_key));
  return std::nullopt;
}

std::optional<int64_t> ToBytes(std::optional<double> bytes) {
  if (!bytes) return std::nullopt;
  return static_cast<int64_t>(std::llround(*bytes));
}

std::string StringMember(const Json* object, const char* key) {
  const Json* value = object != nullptr ? Member(*object, key) : nullptr;
  return value != nullptr && value->is_string() ? value->get<std::string>() : "";
}

GpuReading AmdSmiReading(const Json& entry, int position) {
  GpuReading reading;
  const Json* gpu = Member(entry, "gpu");
  reading.index = gpu != nullptr && gpu->is_number_integer() ? gpu->get<int>() : position;
  reading.name = StringMember(Member(entry, "asic"), "market_name");
  reading.power_w = ReadQuantity(Member(entry, "power"),
                                 {"socket_power", "current_socket_power", "average_socket_power"},
                                 kWatts, "power", &reading.errors);
  reading.utilization_pct = ReadQuantity(Member(entry, "usage"), {"gfx_activity"}, kPercent,
                                         "utilization", &reading.errors);
  const Json* memory = Member(entry, "mem_usage");
  reading.memory_used_bytes =
      ToBytes(ReadQuantity(memory, {"used_vram"}, kBytes, "memory used", &reading.errors));
  reading.memory_total_bytes =
      ToBytes(ReadQuantity(memory, {"total_vram"}, kBytes, "memory total", &reading.errors));
  return reading;
}

GpuReading RocmSmiReading(const Json& card, int index) {
  GpuReading reading;
  reading.index = index;
  reading.name = StringMember(&card, "Card Series");
  if (reading.name.empty()) reading.name = StringMember(&card, "Card series");
  reading.power_w = ReadQuantity(
      &card, {"Average Graphics Package Power (W)", "Current Socket Graphics Package Power (W)"},
      kWatts, "power", &reading.errors);
  reading.utilization_pct =
      ReadQuantity(&card, {"GPU use (%)"}, kPercent, "utilization", &reading.errors);
  // The keys say the unit: bytes.
  reading.memory_used_bytes = ToBytes(ReadQuantity(&card, {"VRAM Total Used Memory (B)"}, {{"", 1}},
                                                   "memory used", &reading.errors));
  reading.memory_total_bytes = ToBytes(
      ReadQuantity(&card, {"VRAM Total Memory (B)"}, {{"", 1}}, "memory total", &reading.errors));
  return reading;
}

}  // namespace

std::vector<std::string> AmdSmiMetricCommand() {
  return {"amd-smi", "metric", "--power", "--usage", "--mem-usage", "--json"};
}

std::vector<std::string> RocmSmiCommand() {
  return {"rocm-smi", "--showpower", "--showuse", "--showmeminfo", "vram", "--json"};
}

absl::StatusOr<std::vector<GpuReading>> ParseAmdSmiMetricJson(absl::string_view text) {
  absl::StatusOr<Json> json = ParseDocument(text, "amd-smi");
  if (!json.ok()) return json.status();
  const Json* entries = json->is_array() ? &*json : Member(*json, "gpu_data");
  if (entries == nullptr || !entries->is_array()) {
    return absl::InvalidArgumentError(
        "amd-smi output is neither a list of GPUs nor {\"gpu_data\": [...]}");
  }
  std::vector<GpuReading> readings;
  for (size_t i = 0; i < entries->size(); ++i) {
    const Json& entry = (*entries)[i];
    if (!entry.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat("amd-smi output: GPU entry ", i, " is not an object: ", entry.dump()));
    }
    readings.push_back(AmdSmiReading(entry, static_cast<int>(i)));
  }
  return readings;
}

absl::StatusOr<std::vector<GpuReading>> ParseRocmSmiJson(absl::string_view text) {
  absl::StatusOr<Json> json = ParseDocument(text, "rocm-smi");
  if (!json.ok()) return json.status();
  if (!json->is_object()) {
    return absl::InvalidArgumentError("rocm-smi output is not a JSON object of cards");
  }
  std::vector<GpuReading> readings;
  for (const auto& [key, card] : json->items()) {
    absl::string_view name = key;
    int index = 0;
    if (!absl::ConsumePrefix(&name, "card") || !absl::SimpleAtoi(name, &index)) continue;
    if (!card.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat("rocm-smi output: ", key, " is not an object: ", card.dump()));
    }
    readings.push_back(RocmSmiReading(card, index));
  }
  std::sort(readings.begin(), readings.end(),
            [](const GpuReading& a, const GpuReading& b) { return a.index < b.index; });
  return readings;
}

}  // namespace kvbench::telemetry
