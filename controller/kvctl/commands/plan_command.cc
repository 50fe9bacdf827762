// kvctl plan SPEC.json: validates a job spec and prints the scenario matrix it expands into,
// without running anything. Exit code 2 with every field error on a bad spec. When the dataset
// can be read here (found as `kvctl run` finds it), each cell also shows the dataset's ceiling of
// virtual users (under the ISL when it can be counted here) and the sessions that will run, and a
// spec whose cells would have no virtual user is refused (exit 2), as `kvctl run` refuses it.

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/local/local_run_config.h"
#include "common/json/proto_json.h"
#include "controller/client/job_plan.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/kvctl/print/table_printer.h"
#include "controller/search/capacity_evaluation.h"

namespace kvbench::kvctl {
namespace {

using agent::DatasetCeiling;
using agent::LocalRunConfig;

std::string RoutingName(const v1::OffloadRouting routing) {
  return routing == v1::OFFLOAD_ROUTING_STICKY ? "STICKY" : "LEAST_CONN";
}

// "routing over 2 replicas: GPU sticky, CPU_RAM least_conn (offload_routing LEAST_CONN)"; ""
// with one replica.
std::string RoutingLine(const v1::JobSpec& spec) {
  if (spec.replicas() < 2) return "";
  std::vector<std::string> tiers;
  for (int tier : spec.tiers()) {
    const auto t = static_cast<v1::Tier>(tier);
    tiers.push_back(absl::StrCat(v1::Tier_Name(t), " ", LocalRunConfig::Routing(spec, t)));
  }
  return absl::StrCat("  routing over ", spec.replicas(), " replicas: ", absl::StrJoin(tiers, ", "),
                      " (offload_routing ", RoutingName(spec.offload_routing()), ")\n");
}

std::string CeilingLine(const v1::JobSpec& spec, const DatasetCeiling& ceiling) {
  if (!ceiling.readable()) {
    return absl::StrCat("  dataset not readable here (", ceiling.unreadable_reason(),
                        "): its ceiling is counted where it runs\n");
  }
  std::string line =
      absl::StrCat("  dataset read here: ", ceiling.path(), ": ceiling ", ceiling.virtual_users(),
                   " virtual users at num_rounds ", spec.num_rounds());
  if (ceiling.virtual_users_under_isl().has_value()) {
    absl::StrAppend(&line, "; ", *ceiling.virtual_users_under_isl(),
                    " with every prompt within isl ", spec.isl(),
                    " (tokens counted as kvsim-vllm's /tokenize counts them)");
  } else if (spec.isl() > 0) {
    absl::StrAppend(&line, "; the ceiling under isl ", spec.isl(),
                    " is counted at run time by the model's tokenizer");
  }
  return line + "\n";
}

void PrintPlanTable(const client::JobPlan& plan, const DatasetCeiling& ceiling, std::ostream& out) {
  const v1::JobSpec& spec = plan.spec;
  if (spec.has_concurrency_search()) {
    const v1::ConcurrencySearch& search = spec.concurrency_search();
    out << "job " << spec.name() << ": a capacity search at " << search::SloText(spec.slo()) << ", "
        << search.min() << " to " << search.max() << " users per tier; its first "
        << plan.scenarios.size() << " scenarios below, the next probes added as each round ends\n";
  } else {
    out << "job " << spec.name() << ": " << plan.scenarios.size() << " scenarios ("
        << spec.tiers_size() << " tiers x " << spec.concurrency_size() << " concurrency values)\n";
  }
  out << "  model " << spec.model() << ", engine " << v1::Engine_Name(spec.engine()) << ", build "
      << v1::Vendor_Name(spec.build()) << ", " << spec.replicas() << " replica(s) x TP "
      << spec.tensor_parallel_size() << "\n"
      << "  dataset " << spec.dataset().code()
      << (spec.dataset().path().empty() ? "" : " (" + spec.dataset().path() + ")")
      << ", num_rounds " << spec.num_rounds() << ", isl " << spec.isl() << ", osl " << spec.osl()
      << "\n"
      << "  sampling every " << spec.sampling().period_s() << " s, rate window "
      << spec.sampling().rate_window_s() << " s\n"
      << RoutingLine(spec) << CeilingLine(spec, ceiling);
  if (std::optional<std::string> warning = ceiling.KvCapacityWarning(spec)) {
    out << "  warning: " << *warning << "\n";
  }
  out << "\n";
  const bool routed = spec.replicas() >= 2;
  const bool under_isl = ceiling.virtual_users_under_isl().has_value();
  std::vector<std::string> headers = {"SCENARIO", "TIER", "CONCURRENCY", "SESSIONS"};
  if (routed) headers.push_back("ROUTING");
  if (ceiling.readable()) headers.push_back("CEILING");
  if (under_isl) headers.push_back("CEILING_UNDER_ISL");
  if (ceiling.readable()) headers.push_back("WILL_RUN");
  headers.push_back("GROUP");
  TablePrinter table(headers);
  for (const v1::Scenario& scenario : plan.scenarios) {
    std::vector<std::string> row = {scenario.scenario_id(), v1::Tier_Name(scenario.tier()),
                                    absl::StrCat(scenario.concurrency()),
                                    absl::StrCat(scenario.sessions())};
    if (routed) row.push_back(LocalRunConfig::Routing(spec, scenario.tier()));
    if (ceiling.readable()) row.push_back(absl::StrCat(ceiling.virtual_users()));
    if (under_isl) row.push_back(absl::StrCat(*ceiling.virtual_users_under_isl()));
    if (ceiling.readable()) row.push_back(absl::StrCat(ceiling.SessionsToRun(scenario.sessions())));
    row.push_back(scenario.comparison_group());
    table.AddRow(std::move(row));
  }
  table.Print(out);
}

nlohmann::ordered_json CeilingJson(const DatasetCeiling& ceiling) {
  nlohmann::ordered_json json;
  json["readable"] = ceiling.readable();
  if (!ceiling.readable()) {
    json["reason"] = ceiling.unreadable_reason();
    return json;
  }
  json["path"] = ceiling.path();
  json["virtual_users"] = ceiling.virtual_users();
  if (ceiling.virtual_users_under_isl().has_value()) {
    json["virtual_users_under_isl"] = *ceiling.virtual_users_under_isl();
  }
  return json;
}

void PrintPlanJson(const client::JobPlan& plan, const DatasetCeiling& ceiling, std::ostream& out) {
  nlohmann::ordered_json json;
  json["spec"] = nlohmann::ordered_json::parse(ProtoToJson(plan.spec));
  json["dataset_ceiling"] = CeilingJson(ceiling);
  json["warnings"] = nlohmann::ordered_json::array();
  if (std::optional<std::string> warning = ceiling.KvCapacityWarning(plan.spec)) {
    json["warnings"].push_back(*warning);
  }
  json["scenarios"] = nlohmann::ordered_json::array();
  for (const v1::Scenario& scenario : plan.scenarios) {
    nlohmann::ordered_json cell = nlohmann::ordered_json::parse(ProtoToJson(scenario));
    cell["routing"] = LocalRunConfig::Routing(plan.spec, scenario.tier());
    if (ceiling.readable()) cell["sessions_to_run"] = ceiling.SessionsToRun(scenario.sessions());
    json["scenarios"].push_back(std::move(cell));
  }
  out << json.dump(2) << "\n";
}

struct PlanFlags {
  std::string spec_path;
  std::vector<std::string> sets;  // --set KEY=VALUE
  std::string dataset_mirror;
  OutputFormat format = OutputFormat::kTable;
};

absl::Status Plan(const PlanFlags& flags, KvctlContext* context) {
  absl::StatusOr<client::JobPlan> plan = client::PlanJobFile(flags.spec_path, flags.sets);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<DatasetCeiling> ceiling =
      DatasetCeiling::Compute(plan->spec, flags.dataset_mirror);
  if (!ceiling.ok()) return ceiling.status();
  if (absl::Status usable = ceiling->CheckCellsHaveUsers(plan->spec); !usable.ok()) return usable;
  if (flags.format == OutputFormat::kJson) {
    PrintPlanJson(*plan, *ceiling, *context->out);
  } else {
    PrintPlanTable(*plan, *ceiling, *context->out);
  }
  return absl::OkStatus();
}

}  // namespace

void AddPlanCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand(
      "plan", "Validate a job spec and print its scenario matrix (runs nothing)");
  auto flags = std::make_shared<PlanFlags>();
  command->add_option("spec", flags->spec_path, "Job spec JSON file")->required();
  AddSpecSetOption(command, &flags->sets);
  command->add_option("--dataset-mirror", flags->dataset_mirror,
                      "Folder holding datasets, searched as `kvctl run --dataset-mirror` does "
                      "(then $KV_DATASET_MIRROR and the demo's datasets shipped beside kvctl)");
  AddOutputOption(command, &flags->format, {OutputFormat::kTable, OutputFormat::kJson});
  command->callback(
      [context, flags] { context->action = [context, flags] { return Plan(*flags, context); }; });
}

}  // namespace kvbench::kvctl
