#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace kvbench::sim {

// How vLLM's KVConnectorFactory finds the class --kv-transfer-config names, by release:
// - kModulePathFirst (the newest factory, get_connector_class; a copy is (idx 61709974063), no
//   commit readable): a non-empty kv_connector_module_path is imported first ("External module
//   path takes priority over internal registry"), else the registry; an empty string is a
//   ValueError, "kv_connector_module_path cannot be an empty string.".
// - kRegistryFirst (older factories, vllm-project/vllm:vllm/distributed/kv_transfer/kv_connector/
//   factory.py@a4cd9d0d and @007c643b): a registered name (LMCacheMPConnector is one) loads
//   vLLM's own class and the module path is never read, an empty one included; the module path
//   only serves names the registry lacks.
// Either way the class is named kv_connector, so kvsim-vllm's observable difference is the empty
// module path: refused by the first, ignored by the second.
enum class ConnectorLookup { kModulePathFirst, kRegistryFirst };

// What the factory creates for one --kv-transfer-config.
struct KvConnectorChoice {
  std::string class_name;  // kv_connector
  // kv_connector_module_path when the lookup imports it; empty when absent, or when the registry
  // serves the name first (kRegistryFirst).
  std::string module_path;
  // engine_id from the JSON; empty: none given (vLLM then draws a uuid4, KVTransferConfig's
  // __post_init__, vllm-project/vllm:vllm/config/kv_transfer.py@9dc49464).
  std::string engine_id;
};

// The connector vLLM's factory would create for the --kv-transfer-config JSON `json` (pure).
// Reads kv_connector, kv_connector_module_path and engine_id only; the connector's own keys are
// LmcacheConnectorConfig's (agent/sim/lmcache). INVALID_ARGUMENT naming the key for JSON that is
// not an object, a kv_connector that is not a string, a kv_connector_module_path or engine_id
// that is neither a string nor null; FAILED_PRECONDITION with the factory's message for an empty
// module path under kModulePathFirst.
absl::StatusOr<KvConnectorChoice> ChooseKvConnector(const std::string& json,
                                                    ConnectorLookup lookup);

// "Creating v1 connector with name: <class> and engine_id: <id>", the line the factory logs as
// it creates the connector (create_connector, in every factory read: @a4cd9d0d, @007c643b and
// the newest). It names no module path in any of them.
std::string ConnectorCreationMessage(const std::string& class_name, const std::string& engine_id);

// A random (version 4) UUID in its 36-character text form, from two 64-bit draws: the engine_id
// vLLM gives a connector when the JSON names none.
std::string Uuid4(uint64_t high, uint64_t low);
// Uuid4 of two draws from std::random_device: a different engine_id per process, as vLLM's.
std::string RandomUuid4();

}  // namespace kvbench::sim
