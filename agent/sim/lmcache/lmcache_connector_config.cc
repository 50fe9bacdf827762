#include "agent/sim/lmcache/lmcache_connector_config.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kvbench::sim::lmcache {
namespace {

constexpr char kHostKey[] = "lmcache.mp.host";
constexpr char kPortKey[] = "lmcache.mp.port";
constexpr char kTimeoutKey[] = "lmcache.mp.mq_timeout";

absl::Status Invalid(absl::string_view key, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("--kv-transfer-config: ", key, " ", problem));
}

// A JSON number or a numeric string, as Python's float() takes both.
absl::StatusOr<double> NumberOf(const nlohmann::json& value, absl::string_view key) {
  if (value.is_number()) return value.get<double>();
  double parsed = 0;
  if (value.is_string() && absl::SimpleAtod(value.get<std::string>(), &parsed)) return parsed;
  return Invalid(key, absl::StrCat("must be a number, got ", value.dump()));
}

absl::StatusOr<int> PortOf(const nlohmann::json& value) {
  int64_t port = 0;
  if (value.is_number_integer()) {
    port = value.get<int64_t>();
  } else if (value.is_number_float() && std::trunc(value.get<double>()) == value.get<double>() &&
             std::abs(value.get<double>()) < 1e9) {
    port = static_cast<int64_t>(value.get<double>());
  } else if (!value.is_string() || !absl::SimpleAtoi(value.get<std::string>(), &port)) {
    return Invalid(kPortKey, absl::StrCat("must be an integer, got ", value.dump()));
  }
  if (port < 1 || port > 65535) {
    return Invalid(kPortKey, absl::StrCat("must be in [1, 65535], got ", port));
  }
  return static_cast<int>(port);
}

absl::Status ParseExtraConfig(const nlohmann::json& extra, LmcacheConnectorConfig* config) {
  if (!extra.is_object()) {
    return Invalid("kv_connector_extra_config",
                   absl::StrCat("must be an object, got ", extra.dump()));
  }
  if (auto it = extra.find(kHostKey); it != extra.end()) {
    if (!it->is_string())
      return Invalid(kHostKey, absl::StrCat("must be a string, got ", it->dump()));
    absl::StatusOr<std::string> host = NormalizeLmcacheHost(it->get<std::string>());
    if (!host.ok()) return Invalid(kHostKey, host.status().message());
    config->host = *host;
  }
  if (auto it = extra.find(kPortKey); it != extra.end()) {
    absl::StatusOr<int> port = PortOf(*it);
    if (!port.ok()) return port.status();
    config->port = *port;
  }
  if (auto it = extra.find(kTimeoutKey); it != extra.end()) {
    absl::StatusOr<double> seconds = NumberOf(*it, kTimeoutKey);
    if (!seconds.ok()) return seconds.status();
    if (!std::isfinite(*seconds) || *seconds <= 0) {
      return Invalid(kTimeoutKey,
                     absl::StrCat("must be a positive number of seconds, got ", *seconds));
    }
    config->mq_timeout = absl::Seconds(*seconds);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> NormalizeLmcacheHost(const std::string& host) {
  if (host.empty()) return absl::InvalidArgumentError("is empty");
  if (absl::StartsWith(host, "tcp://")) {
    if (host.size() == 6) return absl::InvalidArgumentError("\"tcp://\" names no host");
    return host;
  }
  if (absl::StrContains(host, "://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", host, "\": only tcp:// (ZMQ) is simulated by kvsim-lmcache"));
  }
  return absl::StrCat("tcp://", host);
}

absl::StatusOr<LmcacheConnectorConfig> ParseKvTransferConfig(const std::string& json) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& error) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kv-transfer-config is not valid JSON: ", error.what()));
  }
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kv-transfer-config must be a JSON object, got ", root.dump()));
  }
  LmcacheConnectorConfig config;
  auto connector = root.find("kv_connector");
  if (connector == root.end() || !connector->is_string()) {
    return Invalid("kv_connector", "must name the connector (\"LMCacheMPConnector\")");
  }
  config.connector = connector->get<std::string>();
  if (config.connector != kLmcacheMpConnector) {
    return Invalid("kv_connector", absl::StrCat("\"", config.connector,
                                                "\" is not simulated: kvsim-vllm supports only ",
                                                kLmcacheMpConnector));
  }
  auto role = root.find("kv_role");
  if (role == root.end() || !role->is_string()) {
    return Invalid("kv_role", absl::StrCat("is required with kv_connector; ", kLmcacheMpConnector,
                                           " needs \"", kRequiredKvRole, "\""));
  }
  config.kv_role = role->get<std::string>();
  if (config.kv_role != kRequiredKvRole) {
    return Invalid("kv_role",
                   absl::StrCat("\"", config.kv_role, "\" is not supported by ",
                                kLmcacheMpConnector, ": it must be \"", kRequiredKvRole, "\""));
  }
  if (auto extra = root.find("kv_connector_extra_config");
      extra != root.end() && !extra->is_null()) {
    if (absl::Status status = ParseExtraConfig(*extra, &config); !status.ok()) return status;
  }
  return config;
}

}  // namespace kvbench::sim::lmcache
