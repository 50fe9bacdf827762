// kvctl alerts [--schedule NAME] [--job JOB] [--limit N]: the regressions the controller found in
// scheduled runs, newest first, each with its delivery state per webhook.
// kvctl alerts redeliver [--webhook NAME] [--include-failed]: the undelivered ones sent now, once a
// receiver is fixed, rather than after the rest of their backoff.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/json/proto_json.h"
#include "controller/alerts/alert_text.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"

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
    // When it was raised first: without it the list says nothing of when a regression began.
    *context->out << absl::FormatTime("%Y-%m-%d %H:%M:%S UTC  ",
                                      absl::FromUnixMillis(entry.alert().created_unix_ms()),
                                      absl::UTCTimeZone())
                  << controller::AlertSummary(entry.alert()) << "\n";
    for (const v1::AlertDelivery& delivery : entry.deliveries()) {
      *context->out << "  " << DeliveryText(delivery) << "\n";
    }
  }
  return absl::OkStatus();
}

struct RedeliverFlags {
  v1::RedeliverAlertsRequest request;
  bool include_failed = false;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

absl::Status Redeliver(const RedeliverFlags& flags, KvctlContext* context) {
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> controller =
      ConnectController(flags.connection, *context);
  if (!controller.ok()) return controller.status();
  absl::StatusOr<v1::RedeliverAlertsResponse> redelivered =
      (*controller)->RedeliverAlerts(flags.request);
  if (!redelivered.ok()) return redelivered.status();
  if (flags.format == OutputFormat::kJson) {
    *context->out << ProtoToJson(*redelivered, /*pretty=*/true) << "\n";
    return absl::OkStatus();
  }
  const std::string webhook =
      flags.request.webhook().empty() ? "every webhook" : "webhook " + flags.request.webhook();
  *context->out << redelivered->deliveries() << " undelivered alert(s) of " << webhook
                << " sent now" << (flags.request.include_failed() ? " (failed ones included)" : "")
                << "\n";
  return absl::OkStatus();
}

void AddRedeliverCommand(CLI::App* alerts, KvctlContext* context) {
  CLI::App* command = alerts->add_subcommand(
      "redeliver", "Send the undelivered alerts now rather than after their backoff");
  auto flags = std::make_shared<RedeliverFlags>();
  command->add_option_function<std::string>(
      "--webhook", [flags](const std::string& value) { flags->request.set_webhook(value); },
      "Only this webhook's (its name in the controller's config)");
  command->add_flag("--include-failed", flags->include_failed,
                    "Also those given up on, each from a fresh series of attempts");
  AddOutputOption(command, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  AddConnectionFlags(command, &flags->connection);
  command->callback([context, flags] {
    flags->request.set_include_failed(flags->include_failed);
    context->action = [context, flags] { return Redeliver(*flags, context); };
  });
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
  AddRedeliverCommand(command, context);
  // Runs after a subcommand's own callback: the listing only when no subcommand was given.
  command->callback([command, context, flags] {
    if (command->get_subcommands().empty()) {
      context->action = [context, flags] { return Alerts(*flags, context); };
    }
  });
}

}  // namespace kvbench::kvctl
