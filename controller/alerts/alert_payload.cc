#include "controller/alerts/alert_payload.h"

#include <nlohmann/json.hpp>

#include "common/json/proto_json.h"
#include "controller/alerts/alert_text.h"

namespace kvbench::controller {

std::string AlertEventType(const v1::RegressionAlert& alert) {
  return alert.kind() == v1::ALERT_CHANGE_POINT ? "kvbench.regression.change_point"
                                                : "kvbench.regression.diff";
}

std::string AlertWebhookBody(const v1::RegressionAlert& alert) {
  nlohmann::ordered_json body;
  body["type"] = AlertEventType(alert);
  body["timestamp"] = absl::FormatTime(
      "%Y-%m-%dT%H:%M:%E3SZ", absl::FromUnixMillis(alert.created_unix_ms()), absl::UTCTimeZone());
  body["summary"] = AlertSummary(alert);
  // Our own proto JSON always parses; no exception is possible (allow_exceptions = false).
  body["data"] = nlohmann::ordered_json::parse(ProtoToJson(alert), nullptr, false);
  return body.dump();
}

}  // namespace kvbench::controller
