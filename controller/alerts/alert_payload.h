#pragma once

// What a webhook receives for an alert: a JSON body in the shape the Standard
// Webhooks specification recommends — {"type", "timestamp", "data"} — with the alert's fields as
// data (proto JSON names, 64-bit numbers as strings) and a one-line summary for chat receivers.

#include <string>

#include "absl/time/time.h"
#include "kvbench/v1/regression.pb.h"

namespace kvbench::controller {

// "kvbench.regression.diff" or "kvbench.regression.change_point".
std::string AlertEventType(const v1::RegressionAlert& alert);

// The body, with `timestamp` the alert's creation time (stable across retries: the signature
// covers the delivery time separately).
std::string AlertWebhookBody(const v1::RegressionAlert& alert);

}  // namespace kvbench::controller
