// kvctl schedule create|list|show|pause|resume|delete|run-now: schedules on the
// controller, each firing a job spec by a cron expression in a time zone.
//
//   kvctl schedule create nightly --spec sweep.json --cron "0 2 * * *" --time-zone Europe/Berlin
//   kvctl schedule create --file nightly.json          (a whole ScheduleSpec as JSON)
//   kvctl schedule show nightly                        (its state and recent fires)
//   kvctl schedule create nightly --spec v2.json --cron "0 2 * * *" --replace  (same history)

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/json/proto_json.h"
#include "common/json/validated_json.h"
#include "controller/client/job_plan.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/kvctl/print/table_printer.h"
#include "controller/schedule/iana_time_zone.h"
#include "controller/schedule/schedule_spec_validator.h"

namespace kvbench::kvctl {
namespace {

struct ScheduleFlags {
  std::string name;
  // create
  std::string file;
  std::string spec_path;
  std::string cron;
  std::string time_zone;
  std::string overlap = "skip";
  double missed_grace_s = -1;  // unset
  bool replace = false;
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

std::string Time(int64_t unix_ms) {
  if (unix_ms <= 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::FromUnixMillis(unix_ms),
                          absl::UTCTimeZone());
}

// In the schedule's time zone, as its cron reads, then in UTC: "2026-12-07 02:00:00 CET
// (01:00:00 UTC)" (a Berlin cron's fires in UTC alone read an hour or two off its cron).
// The zone by its IANA name only, as the controller loads it: a name the controller sends is
// never opened as a path here either.
std::string ZonedTime(int64_t unix_ms, const std::string& time_zone) {
  if (unix_ms <= 0 || time_zone.empty() || time_zone == "UTC") return Time(unix_ms);
  absl::StatusOr<absl::TimeZone> zone = controller::LoadIanaTimeZone(time_zone);
  if (!zone.ok()) return Time(unix_ms);
  const absl::Time time = absl::FromUnixMillis(unix_ms);
  return absl::StrCat(absl::FormatTime("%Y-%m-%d %H:%M:%S %Z", time, *zone), " (",
                      absl::FormatTime("%H:%M:%S UTC", time, absl::UTCTimeZone()), ")");
}

// The ScheduleSpec the flags describe, checked here in full before any network.
absl::StatusOr<v1::ScheduleSpec> SpecFromFlags(const ScheduleFlags& flags) {
  v1::ScheduleSpec spec;
  if (!flags.file.empty()) {
    if (!flags.name.empty() || !flags.spec_path.empty() || !flags.cron.empty()) {
      return absl::InvalidArgumentError(
          "--file holds the whole schedule: give no NAME, --spec or --cron with it");
    }
    return LoadValidatedFile<v1::ScheduleSpec>(flags.file, &controller::ValidateScheduleSpec);
  }
  if (flags.name.empty() || flags.spec_path.empty() || flags.cron.empty()) {
    return absl::InvalidArgumentError(
        "a schedule needs NAME, --spec JOB.json and --cron EXPR (or --file SCHEDULE.json)");
  }
  // The job spec as written (the controller fills in its defaults), checked as submit does.
  absl::StatusOr<client::JobPlan> plan = client::PlanJobFile(flags.spec_path);
  if (!plan.ok()) return plan.status();
  if (absl::Status loaded = LoadProtoFromJsonFile(flags.spec_path, spec.mutable_job());
      !loaded.ok()) {
    return loaded;
  }
  spec.set_name(flags.name);
  spec.set_cron(flags.cron);
  spec.set_time_zone(flags.time_zone);
  if (flags.overlap == "queue") {
    spec.set_overlap(v1::OVERLAP_QUEUE);
  } else if (flags.overlap == "replace") {
    spec.set_overlap(v1::OVERLAP_REPLACE);
  } else {
    spec.set_overlap(v1::OVERLAP_SKIP);
  }
  if (flags.missed_grace_s >= 0) spec.set_missed_run_grace_s(flags.missed_grace_s);
  if (absl::Status checked = controller::ValidateScheduleSpec(spec).ToStatus(
          absl::StrCat("schedule \"", flags.name, "\""));
      !checked.ok()) {
    return checked;
  }
  return spec;
}

void PrintSchedules(const std::vector<v1::Schedule>& schedules, std::ostream& out) {
  TablePrinter table({"NAME", "CRON", "TIME_ZONE", "OVERLAP", "STATE", "NEXT_FIRE"});
  for (const v1::Schedule& schedule : schedules) {
    const v1::ScheduleSpec& spec = schedule.spec();
    table.AddRow({spec.name(), spec.cron(), spec.time_zone(),
                  controller::OverlapPolicyName(spec.overlap()),
                  schedule.paused() ? "paused" : "active",
                  ZonedTime(schedule.next_fire_unix_ms(), spec.time_zone())});
  }
  table.Print(out);
}

void PrintSchedule(const v1::Schedule& schedule, std::ostream& out) {
  const v1::ScheduleSpec& spec = schedule.spec();
  out << "schedule " << spec.name() << ": " << (schedule.paused() ? "paused" : "active") << "\n"
      << "  cron:       " << spec.cron() << " (" << spec.time_zone() << ")\n"
      << "  overlap:    " << controller::OverlapPolicyName(spec.overlap()) << "\n"
      << "  grace:      "
      << (spec.has_missed_run_grace_s() ? spec.missed_run_grace_s()
                                        : controller::kDefaultMissedRunGraceSeconds)
      << " s\n"
      << "  job:        " << spec.job().name() << " (" << spec.job().tiers_size() << " tiers x "
      << spec.job().concurrency_size() << " concurrencies)\n"
      << "  created:    " << Time(schedule.create_unix_ms()) << "\n"
      << "  next fire:  " << ZonedTime(schedule.next_fire_unix_ms(), spec.time_zone()) << "\n";
  if (schedule.recent_fires().empty()) {
    out << "\nno fires yet\n";
    return;
  }
  out << "\n";
  TablePrinter table({"FIRE_TIME", "OUTCOME", "JOB", "DETAIL"});
  for (const v1::ScheduleFire& fire : schedule.recent_fires()) {
    table.AddRow({fire.run_now() ? absl::StrCat("run-now ", Time(fire.handled_unix_ms()))
                                 : ZonedTime(fire.fire_unix_ms(), spec.time_zone()),
                  controller::FireOutcomeName(fire.outcome()),
                  fire.job_id().empty() ? "-" : fire.job_id(), fire.detail()});
  }
  table.Print(out);
}

void Print(const v1::Schedule& schedule, const ScheduleFlags& flags, KvctlContext* context) {
  if (flags.format == OutputFormat::kJson) {
    *context->out << ProtoToJson(schedule, /*pretty=*/true) << "\n";
  } else {
    PrintSchedule(schedule, *context->out);
  }
}

enum class Action { kCreate, kList, kShow, kPause, kResume, kDelete, kRunNow };

absl::Status Run(Action action, const ScheduleFlags& flags, KvctlContext* context) {
  absl::StatusOr<v1::ScheduleSpec> spec;
  if (action == Action::kCreate) {
    spec = SpecFromFlags(flags);  // before any network
    if (!spec.ok()) return spec.status();
  }
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> connected =
      ConnectController(flags.connection, *context);
  if (!connected.ok()) return connected.status();
  client::ControllerClient& client = **connected;
  switch (action) {
    case Action::kCreate: {
      absl::StatusOr<v1::Schedule> created = client.CreateSchedule(*spec, flags.replace);
      if (!created.ok()) return created.status();
      Print(*created, flags, context);
      return absl::OkStatus();
    }
    case Action::kList: {
      absl::StatusOr<v1::ListSchedulesResponse> listed = client.ListSchedules();
      if (!listed.ok()) return listed.status();
      if (flags.format == OutputFormat::kJson) {
        *context->out << ProtoToJson(*listed, /*pretty=*/true) << "\n";
      } else {
        PrintSchedules({listed->schedules().begin(), listed->schedules().end()}, *context->out);
      }
      return absl::OkStatus();
    }
    case Action::kShow:
    case Action::kPause:
    case Action::kResume: {
      absl::StatusOr<v1::Schedule> schedule =
          action == Action::kShow ? client.GetSchedule(flags.name)
                                  : client.SetSchedulePaused(flags.name, action == Action::kPause);
      if (!schedule.ok()) return schedule.status();
      Print(*schedule, flags, context);
      return absl::OkStatus();
    }
    case Action::kDelete: {
      absl::Status deleted = client.DeleteSchedule(flags.name);
      if (deleted.ok()) *context->out << "schedule " << flags.name << " deleted\n";
      return deleted;
    }
    case Action::kRunNow: {
      absl::StatusOr<v1::ScheduleFire> fire = client.RunScheduleNow(flags.name);
      if (!fire.ok()) return fire.status();
      if (flags.format == OutputFormat::kJson) {
        *context->out << ProtoToJson(*fire, /*pretty=*/true) << "\n";
      } else {
        *context->out << "schedule " << flags.name << ": "
                      << controller::FireOutcomeName(fire->outcome())
                      << (fire->job_id().empty() ? "" : " job ") << fire->job_id()
                      << (fire->detail().empty() ? "" : " (") << fire->detail()
                      << (fire->detail().empty() ? "" : ")") << "\n";
      }
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

void AddAction(CLI::App* schedule, KvctlContext* context, Action action, const char* name,
               const char* help) {
  CLI::App* command = schedule->add_subcommand(name, help);
  auto flags = std::make_shared<ScheduleFlags>();
  if (action == Action::kCreate) {
    command->add_option("name", flags->name, "Schedule name (lowercase letters, digits, -_.)");
    command->add_option("--file", flags->file, "A whole schedule as JSON (a ScheduleSpec)");
    command->add_option("--spec", flags->spec_path, "Job spec JSON file each fire submits");
    command->add_option("--cron", flags->cron,
                        "5-field cron expression or @hourly/@daily/@weekly/@monthly/@yearly");
    command->add_option("--time-zone", flags->time_zone,
                        "IANA time zone of the cron expression (default UTC)");
    command
        ->add_option("--overlap", flags->overlap,
                     "When the previous job still runs: skip (default), queue or replace")
        ->check(CLI::IsMember({"skip", "queue", "replace"}));
    command
        ->add_option("--missed-grace", flags->missed_grace_s,
                     "Seconds a fire missed while the controller was down still runs "
                     "(default 600)")
        ->check(CLI::Range(0.0, controller::kMaxMissedRunGraceSeconds));
    command->add_flag("--replace", flags->replace,
                      "Replace the spec of the existing schedule of that name: its fires, "
                      "history, baseline and change points stay");
  } else if (action != Action::kList) {
    command->add_option("name", flags->name, "Schedule name")->required();
  }
  if (action != Action::kDelete) {
    AddOutputOption(command, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  }
  AddConnectionFlags(command, &flags->connection);
  command->callback([context, flags, action] {
    context->action = [context, flags, action] { return Run(action, *flags, context); };
  });
}

}  // namespace

void AddScheduleCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* schedule =
      app->add_subcommand("schedule", "Schedules on the controller: a job spec fired by cron");
  schedule->require_subcommand(1);
  AddAction(schedule, context, Action::kCreate, "create",
            "Create a schedule (NAME --spec JOB.json --cron EXPR, or --file SCHEDULE.json)");
  AddAction(schedule, context, Action::kList, "list", "List schedules and their next fire");
  AddAction(schedule, context, Action::kShow, "show", "A schedule and its recent fires");
  AddAction(schedule, context, Action::kPause, "pause", "Stop firing (until resumed)");
  AddAction(schedule, context, Action::kResume, "resume",
            "Fire again from now on (what fell in the pause is not caught up)");
  AddAction(schedule, context, Action::kDelete, "delete",
            "Delete a schedule and its fire records (its jobs stay)");
  AddAction(schedule, context, Action::kRunNow, "run-now",
            "Fire now, whatever the cron says (the overlap policy applies)");
}

}  // namespace kvbench::kvctl
