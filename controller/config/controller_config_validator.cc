#include "controller/config/controller_config_validator.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/config/config_checks.h"
#include "common/json/validated_json.h"
#include "common/status/status_macros.h"
#include "controller/alerts/webhook_sender.h"
#include "controller/analysis/analysis_settings.h"

namespace kvbench::controller {
namespace {

bool IsSha256Hex(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return absl::ascii_isxdigit(static_cast<unsigned char>(c));
         });
}

void ValidateSecurity(const v1::ControllerConfig& config, FieldErrors* errors) {
  for (int i = 0; i < config.token_sha256_size(); ++i) {
    if (!IsSha256Hex(config.token_sha256(i))) {
      errors->Add(absl::StrCat("token_sha256[", i, "]"),
                  "must be 64 hex digits: the SHA-256 of a token (sha256sum), never the token");
    }
  }
  if (config.insecure()) return;
  const v1::TlsConfig& tls = config.tls();
  CheckAbsolutePath(errors, "tls.ca_cert_path", tls.ca_cert_path(), /*required=*/true);
  CheckAbsolutePath(errors, "tls.cert_path", tls.cert_path(), /*required=*/true);
  CheckAbsolutePath(errors, "tls.key_path", tls.key_path(), /*required=*/true);
  if (config.token_sha256().empty()) {
    errors->Add("token_sha256",
                "needs at least one token hash for kvctl and schedulers (or "
                "\"insecure\": true for local use)");
  }
}

// Regression settings (each range checked by AnalysisSettingsFromConfig) and the webhooks' shape;
// the secrets are read when the controller starts.
void ValidateRegressions(const v1::ControllerConfig& config, FieldErrors* errors) {
  absl::StatusOr<AnalysisSettings> settings = AnalysisSettingsFromConfig(config.regression());
  if (!settings.ok()) errors->Add("regression", std::string(settings.status().message()));
  std::set<std::string> names;
  for (int i = 0; i < config.webhooks_size(); ++i) {
    const v1::WebhookConfig& webhook = config.webhooks(i);
    const std::string field = absl::StrCat("webhooks[", i, "]");
    if (webhook.name().empty()) errors->Add(field + ".name", "is required");
    if (!names.insert(webhook.name()).second) {
      errors->Add(field + ".name", absl::StrCat("\"", webhook.name(), "\" names another webhook"));
    }
    if (absl::Status url = ValidateWebhookUrl(webhook.url()); !url.ok()) {
      errors->Add(field + ".url", std::string(url.message()));
    }
    CheckAbsolutePath(errors, field + ".secret_file", webhook.secret_file(), /*required=*/true);
  }
}

}  // namespace

FieldErrors ValidateControllerConfig(const v1::ControllerConfig& config) {
  FieldErrors errors;
  if (config.listen_address().empty()) {
    errors.Add("listen_address", "is required (host:port; port 0 picks a free one)");
  } else {
    CheckHostPort(&errors, "listen_address", config.listen_address(), /*allow_port_zero=*/true);
  }
  CheckAbsolutePath(&errors, "data_dir", config.data_dir(), /*required=*/true);
  CheckOwnFolder(&errors, "data_dir", config.data_dir());
  if (config.store().has_postgresql()) {
    CheckAbsolutePath(&errors, "store.postgresql.dsn_file", config.store().postgresql().dsn_file(),
                      /*required=*/true);
    if (config.store().postgresql().lease_s() != 0) {
      CheckSeconds(&errors, "store.postgresql.lease_s", config.store().postgresql().lease_s(), 600);
    }
    if (!config.store().postgresql().advertise_address().empty()) {
      CheckHostPort(&errors, "store.postgresql.advertise_address",
                    config.store().postgresql().advertise_address(), /*allow_port_zero=*/false);
    }
  }
  ValidateSecurity(config, &errors);
  if (!config.metrics_listen().empty()) {
    CheckHostPort(&errors, "metrics_listen", config.metrics_listen(), /*allow_port_zero=*/true);
  }
  if (config.heartbeat_timeout_s() != 0) {
    CheckSeconds(&errors, "heartbeat_timeout_s", config.heartbeat_timeout_s(), 3600);
  }
  if (config.assignment_timeout_s() != 0) {
    CheckSeconds(&errors, "assignment_timeout_s", config.assignment_timeout_s(), 86400);
  }
  if (config.event_silence_timeout_s() != 0) {
    const double seconds = config.event_silence_timeout_s();
    if (std::isfinite(seconds) && seconds > 0 && seconds < kMinEventSilenceTimeoutSeconds) {
      errors.Add(
          "event_silence_timeout_s",
          absl::StrCat(seconds, " is too short: a running scenario's agent sends an event every ",
                       absl::FormatDuration(kScenarioKeepalivePeriod),
                       " at the least, so it must be at least ", kMinEventSilenceTimeoutSeconds));
    } else {
      CheckSeconds(&errors, "event_silence_timeout_s", seconds, 86400);
    }
  }
  if (config.max_scenario_attempts() < 0 || config.max_scenario_attempts() > kMaxScenarioAttempts) {
    errors.Add("max_scenario_attempts",
               absl::StrCat(config.max_scenario_attempts(),
                            " is out of range: must be between 1 and ", kMaxScenarioAttempts));
  }
  if (config.has_request_retention_days()) {
    const double days = config.request_retention_days();
    if (!std::isfinite(days) || days < 0 || days > kMaxRequestRetentionDays) {
      errors.Add("request_retention_days",
                 absl::StrCat(days, " is out of range: must be between 0 (keep forever) and ",
                              kMaxRequestRetentionDays));
    }
  }
  ValidateRegressions(config, &errors);
  return errors;
}

void ApplyControllerConfigDefaults(v1::ControllerConfig* config) {
  if (config->heartbeat_timeout_s() == 0) {
    config->set_heartbeat_timeout_s(kDefaultHeartbeatTimeoutSeconds);
  }
  if (config->assignment_timeout_s() == 0) {
    config->set_assignment_timeout_s(kDefaultAssignmentTimeoutSeconds);
  }
  if (config->event_silence_timeout_s() == 0) {
    config->set_event_silence_timeout_s(kDefaultEventSilenceTimeoutSeconds);
  }
  if (config->max_scenario_attempts() == 0) {
    config->set_max_scenario_attempts(kDefaultMaxScenarioAttempts);
  }
  if (!config->has_request_retention_days()) {
    config->set_request_retention_days(kDefaultRequestRetentionDays);
  }
}

absl::StatusOr<v1::ControllerConfig> LoadControllerConfig(const std::string& path) {
  const auto resolve_paths = [&path](v1::ControllerConfig* config) {
    ResolveAgainstConfigFile(path, config->mutable_data_dir());
    if (config->store().has_postgresql()) {
      ResolveAgainstConfigFile(path,
                               config->mutable_store()->mutable_postgresql()->mutable_dsn_file());
    }
    if (config->has_tls()) ResolveTlsPaths(path, config->mutable_tls());
    for (v1::WebhookConfig& webhook : *config->mutable_webhooks()) {
      if (!webhook.secret_file().empty()) {
        ResolveAgainstConfigFile(path, webhook.mutable_secret_file());
      }
    }
  };
  KV_ASSIGN_OR_RETURN(
      v1::ControllerConfig config,
      LoadValidatedFile<v1::ControllerConfig>(path, &ValidateControllerConfig, resolve_paths));
  ApplyControllerConfigDefaults(&config);
  return config;
}

}  // namespace kvbench::controller
