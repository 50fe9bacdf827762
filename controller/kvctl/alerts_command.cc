// kvctl alerts [--schedule NAME] [--job JOB] [--limit N]: the regressions the controller found in
// scheduled runs (issue #21), newest first, each with its delivery state per webhook.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json/proto_json.h"
#include "controller/alerts/alert_text.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/output_format.h"

namespace kvbench::kvctl {
namespace {

struct AlertsFlags {
  v1::ListAlertsRequest request;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

std::string DeliveryText(const v1::AlertDelivery& delivery) {
  std::string text =
      absl::StrCat(delivery.webhook(), " ", controller::DeliveryStateName(delivery.state()),
                   " after ", delivery.attempts(), " attempt(s)");
  if (delivery.state() != v1::DELIVERY_DELIVERED && !delivery.last_detail().empty()) {
    absl::StrAppend(&text, ": ", delivery.last_detail());
  }
  return text;
}

absl::Status Alerts(const AlertsFlags& flags, KvctlContext* context) {
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> controller =
      ConnectController(flags.connection, *context);
  if (!controller.ok()) return controller.status();
  absl::StatusOr<v1::ListAlertsResponse> alerts = (*controller)->ListAlerts(flags.request);
  if (!alerts.ok()) return alerts.status();
  if (flags.format == OutputFormat::kJson) {
    *context->out << ProtoToJson(*alerts, /*pretty=*/true) << "\n";
    return absl::OkStatus();
  }
  if (alerts->alerts().empty()) *context->out << "no regression alerts\n";
  for (const v1::AlertWithDeliveries& entry : alerts->alerts()) {
    *context->out << controller::AlertSummary(entry.alert()) << "\n";
    for (const v1::AlertDelivery& delivery : entry.deliveries()) {
      *context->out << "  " << DeliveryText(delivery) << "\n";
    }
  }
  return absl::OkStatus();
}

}  // namespace

void AddAlertsCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "alerts", "Regressions found in scheduled runs, newest first, with webhook deliveries");
  auto flags = std::make_shared<AlertsFlags>();
  command->add_option_function<std::string>(
      "--schedule", [flags](const std::string& value) { flags->request.set_schedule(value); },
      "Only this schedule's");
  command->add_option_function<std::string>(
      "--job", [flags](const std::string& value) { flags->request.set_job_id(value); },
      "Only this job's");
  command
      ->add_option_function<int>(
          "--limit", [flags](int value) { flags->request.set_limit(value); },
          "At most this many (default 50, max 1000)")
      ->check(CLI::Range(1, 1000));
  AddOutputOption(command, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  AddConnectionFlags(command, &flags->connection);
  command->callback(
      [context, flags] { context->action = [context, flags] { return Alerts(*flags, context); }; });
}

}  // namespace kvbench::kvctl
