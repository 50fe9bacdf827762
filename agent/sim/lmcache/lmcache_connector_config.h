#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kvbench::sim::lmcache {

// The connector vLLM's --kv-transfer-config names for LMCache's multiprocess mode, the only one
// kvsim-vllm simulates (reference/lmcache.md §2.4).
inline constexpr char kLmcacheMpConnector[] = "LMCacheMPConnector";
// LMCacheMPConnector works only as both producer and consumer of KV.
inline constexpr char kRequiredKvRole[] = "kv_both";
// Defaults of the kv_connector_extra_config keys lmcache.mp.host / .port / .mq_timeout
// (reference/lmcache.md §2.4): the server on this host, its default --port, and 300 s for the
// blocking RPCs (chunk-size query, register) after which the real connector raises
// ConnectionError.
inline constexpr char kDefaultLmcacheHost[] = "tcp://localhost";
inline constexpr int kDefaultLmcachePort = 5555;
inline constexpr absl::Duration kDefaultMqTimeout = absl::Seconds(300);

struct LmcacheConnectorConfig {
  std::string connector;                   // always kLmcacheMpConnector once parsed
  std::string kv_role;                     // always kRequiredKvRole once parsed
  std::string host = kDefaultLmcacheHost;  // normalized to tcp://host
  int port = kDefaultLmcachePort;
  absl::Duration mq_timeout = kDefaultMqTimeout;
};

// Parses vLLM's --kv-transfer-config JSON for LMCacheMPConnector:
//   {"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",
//    "kv_connector_extra_config":{"lmcache.mp.host":"tcp://127.0.0.1","lmcache.mp.port":5555,
//                                 "lmcache.mp.mq_timeout":300.0}}
// Other top-level and extra keys (kv_connector_module_path, lmcache.mp.heartbeat_interval...)
// are accepted and ignored, as vLLM and the connector ignore what they do not use.
// - lmcache.mp.host: "tcp://h" or a bare host "h" (normalized to tcp://h, as the connector does);
//   other schemes (grpc://) are refused: the simulator speaks ZMQ only.
// - lmcache.mp.port: an integer in [1, 65535], as a JSON number or a string of digits (the
//   connector converts it with int()).
// - lmcache.mp.mq_timeout: seconds > 0, a number or a numeric string (float()).
// INVALID_ARGUMENT naming the key for bad JSON, another connector, a kv_role other than kv_both
// (or none), and bad values.
absl::StatusOr<LmcacheConnectorConfig> ParseKvTransferConfig(const std::string& json);

// "tcp://h" for a bare host "h"; "tcp://h" unchanged; INVALID_ARGUMENT for another scheme or "".
absl::StatusOr<std::string> NormalizeLmcacheHost(const std::string& host);

}  // namespace kvbench::sim::lmcache
