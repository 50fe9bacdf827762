// kvctl plan SPEC.json: validates a job spec and prints the scenario matrix it expands into,
// without running anything. Exit code 2 with every field error on a bad spec.

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json/proto_json.h"
#include "controller/client/job_plan.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/output_format.h"
#include "controller/kvctl/table_printer.h"

namespace kvbench::kvctl {
namespace {

void PrintPlanTable(const client::JobPlan& plan, std::ostream& out) {
  const v1::JobSpec& spec = plan.spec;
  out << "job " << spec.name() << ": " << plan.scenarios.size() << " scenarios ("
      << spec.tiers_size() << " tiers x " << spec.concurrency_size() << " concurrency values)\n"
      << "  model " << spec.model() << ", engine " << v1::Engine_Name(spec.engine())
      << ", build " << v1::Vendor_Name(spec.build()) << ", " << spec.replicas()
      << " replica(s) x TP " << spec.tensor_parallel_size() << "\n"
      << "  dataset " << spec.dataset().code()
      << (spec.dataset().path().empty() ? "" : " (" + spec.dataset().path() + ")")
      << ", num_rounds " << spec.num_rounds() << ", isl " << spec.isl() << ", osl "
      << spec.osl() << "\n"
      << "  sampling every " << spec.sampling().period_s() << " s, rate window "
      << spec.sampling().rate_window_s() << " s\n\n";
  TablePrinter table({"SCENARIO", "TIER", "CONCURRENCY", "SESSIONS", "GROUP"});
  for (const v1::Scenario& scenario : plan.scenarios) {
    table.AddRow({scenario.scenario_id(), v1::Tier_Name(scenario.tier()),
                  absl::StrCat(scenario.concurrency()), absl::StrCat(scenario.sessions()),
                  scenario.comparison_group()});
  }
  table.Print(out);
}

void PrintPlanJson(const client::JobPlan& plan, std::ostream& out) {
  nlohmann::ordered_json json;
  json["spec"] = nlohmann::ordered_json::parse(ProtoToJson(plan.spec));
  json["scenarios"] = nlohmann::ordered_json::array();
  for (const v1::Scenario& scenario : plan.scenarios) {
    json["scenarios"].push_back(nlohmann::ordered_json::parse(ProtoToJson(scenario)));
  }
  out << json.dump(2) << "\n";
}

}  // namespace

void AddPlanCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "plan", "Validate a job spec and print its scenario matrix (runs nothing)");
  auto spec_path = std::make_shared<std::string>();
  auto format = std::make_shared<OutputFormat>(OutputFormat::kTable);
  command->add_option("spec", *spec_path, "Job spec JSON file")->required();
  AddOutputOption(command, format.get(), {OutputFormat::kTable, OutputFormat::kJson});
  command->callback([context, spec_path, format] {
    context->action = [context, spec_path, format]() -> absl::Status {
      absl::StatusOr<client::JobPlan> plan = client::PlanJobFile(*spec_path);
      if (!plan.ok()) return plan.status();
      if (*format == OutputFormat::kJson) {
        PrintPlanJson(*plan, *context->out);
      } else {
        PrintPlanTable(*plan, *context->out);
      }
      return absl::OkStatus();
    };
  });
}

}  // namespace kvbench::kvctl
