#include "agent/sim/vllm/kv_connector_factory.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kvbench::sim {
namespace {

absl::Status NotAString(absl::string_view key, const nlohmann::json& value) {
  return absl::InvalidArgumentError(
      absl::StrCat("--kv-transfer-config: ", key, " must be a string, got ", value.dump()));
}

// A string member of `root`: nullopt when absent or null.
absl::StatusOr<std::optional<std::string>> OptionalString(const nlohmann::json& root,
                                                          const char* key) {
  const auto it = root.find(key);
  if (it == root.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return NotAString(key, *it);
  return std::optional<std::string>(it->get<std::string>());
}

}  // namespace

absl::StatusOr<KvConnectorChoice> ChooseKvConnector(const std::string& json,
                                                    ConnectorLookup lookup) {
  const nlohmann::json root = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object()) {
    return absl::InvalidArgumentError("--kv-transfer-config must be a JSON object");
  }
  KvConnectorChoice choice;
  absl::StatusOr<std::optional<std::string>> name = OptionalString(root, "kv_connector");
  if (!name.ok()) return name.status();
  if (!name->has_value()) {
    return absl::InvalidArgumentError("--kv-transfer-config: kv_connector must name a connector");
  }
  choice.class_name = **name;
  absl::StatusOr<std::optional<std::string>> module_path =
      OptionalString(root, "kv_connector_module_path");
  if (!module_path.ok()) return module_path.status();
  absl::StatusOr<std::optional<std::string>> engine_id = OptionalString(root, "engine_id");
  if (!engine_id.ok()) return engine_id.status();
  choice.engine_id = engine_id->value_or("");
  if (lookup == ConnectorLookup::kModulePathFirst && module_path->has_value()) {
    if ((*module_path)->empty()) {
      return absl::FailedPreconditionError("kv_connector_module_path cannot be an empty string.");
    }
    choice.module_path = **module_path;
  }
  // kRegistryFirst: the only connector simulated is registered, so its module path is unread.
  return choice;
}

std::string ConnectorCreationMessage(const std::string& class_name, const std::string& engine_id) {
  return absl::StrCat("Creating v1 connector with name: ", class_name,
                      " and engine_id: ", engine_id);
}

std::string Uuid4(uint64_t high, uint64_t low) {
  // RFC 4122: version 4 in the high nibble of the 7th byte, variant 10xx in the 9th.
  high = (high & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  low = (low & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  return absl::StrFormat("%08x-%04x-%04x-%04x-%012x", high >> 32, (high >> 16) & 0xffff,
                         high & 0xffff, low >> 48, low & 0xffffffffffffULL);
}

std::string RandomUuid4() {
  std::random_device random;
  auto draw = [&random] { return (uint64_t{random()} << 32) | random(); };
  const uint64_t high = draw();
  return Uuid4(high, draw());
}

}  // namespace kvbench::sim
