// kvctl agents: the agents the controller knows, what each can run and what it runs now, and
// what its preflight keeps off it: a CANNOT_RUN column and, under the table, each
// failing check with its remedy.

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/json/proto_json.h"
#include "controller/kvctl/connection_flags.h"
#include "controller/kvctl/kvctl_command.h"
#include "controller/kvctl/print/output_format.h"
#include "controller/kvctl/print/results_table.h"
#include "controller/kvctl/print/table_printer.h"

namespace kvbench::kvctl {
namespace {

struct AgentsFlags {
  OutputFormat format = OutputFormat::kTable;
  ConnectionFlags connection;
};

// "8x NVIDIA H200", "2x NVIDIA H200, 1x NVIDIA A100" (by name, in first-seen order), "-".
std::string Gpus(const v1::AgentCapabilities& capabilities) {
  std::vector<std::pair<std::string, int>> counts;
  for (const v1::GpuInfo& gpu : capabilities.gpus()) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&gpu](const auto& count) { return count.first == gpu.name(); });
    if (it == counts.end()) {
      counts.emplace_back(gpu.name(), 1);
    } else {
      ++it->second;
    }
  }
  if (counts.empty()) return "-";
  return absl::StrJoin(counts, ", ", [](std::string* out, const auto& count) {
    absl::StrAppend(out, count.second, "x ", count.first);
  });
}

std::string Bytes(int64_t bytes) {
  if (bytes <= 0) return "-";
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  return absl::StrFormat("%.0f GiB", bytes / kGiB);
}

std::string Age(int64_t unix_ms, absl::Time now) {
  if (unix_ms <= 0) return "never";
  absl::Duration age = now - absl::FromUnixMillis(unix_ms);
  // Under a second reads "<1s ago" (FormatDuration(0) is "0").
  if (age < absl::Seconds(1)) return "<1s ago";
  return absl::StrCat(absl::FormatDuration(absl::Trunc(age, absl::Seconds(1))), " ago");
}

std::string TierNames(const google::protobuf::RepeatedField<int>& tiers) {
  if (tiers.empty()) return "every tier";
  return absl::StrJoin(tiers, ",", [](std::string* out, int tier) {
    out->append(v1::Tier_Name(static_cast<v1::Tier>(tier)));
  });
}

// What the agent's latest preflight keeps off it: "-", "NVME", "every tier", or the profiles a
// FAIL concerns ("NVME; profiles vllm-amd,vllm-nvidia").
std::string CannotRun(const v1::AgentCapabilities& capabilities) {
  std::set<int> tiers;
  bool every_tier = false;
  std::set<std::string> profiles;
  for (const v1::PreflightCheck& check : capabilities.preflight()) {
    if (check.status() != v1::PREFLIGHT_FAIL) continue;
    if (!check.profiles().empty()) {
      profiles.insert(check.profiles().begin(), check.profiles().end());
    } else if (check.tiers().empty()) {
      every_tier = true;
    } else {
      tiers.insert(check.tiers().begin(), check.tiers().end());
    }
  }
  std::vector<std::string> parts;
  if (every_tier) {
    parts.push_back("every tier");
  } else if (!tiers.empty()) {
    parts.push_back(absl::StrJoin(tiers, ",", [](std::string* out, int tier) {
      out->append(v1::Tier_Name(static_cast<v1::Tier>(tier)));
    }));
  }
  if (!profiles.empty()) parts.push_back(absl::StrCat("profiles ", absl::StrJoin(profiles, ",")));
  return parts.empty() ? "-" : absl::StrJoin(parts, "; ");
}

// Under the table: each agent's failing checks, why and what to do; then how many warn.
void PrintPreflightFailures(const std::vector<v1::AgentView>& agents, std::ostream& out) {
  for (const v1::AgentView& agent : agents) {
    const v1::AgentCapabilities& capabilities = agent.capabilities();
    int warnings = 0;
    for (const v1::PreflightCheck& check : capabilities.preflight()) {
      if (check.status() == v1::PREFLIGHT_WARN) ++warnings;
      if (check.status() != v1::PREFLIGHT_FAIL) continue;
      out << capabilities.agent_id() << " cannot run " << TierNames(check.tiers())
          << (check.profiles().empty()
                  ? ""
                  : absl::StrCat(" of profile ", absl::StrJoin(check.profiles(), ", ")))
          << ": preflight " << check.name() << " FAILs: " << check.detail() << "\n";
      if (!check.remedy().empty()) out << "  → " << check.remedy() << "\n";
    }
    if (warnings > 0) {
      out << capabilities.agent_id() << ": " << warnings << " preflight warning"
          << (warnings == 1 ? "" : "s") << " (kvctl agents --output json)\n";
    }
  }
}

std::vector<std::string> Headers() {
  return {"AGENT", "HOST",     "STATE",   "GPUS",      "CPU_MEM",
          "NVME",  "PROFILES", "RUNNING", "HEARTBEAT", "CANNOT_RUN"};
}

std::vector<std::string> Cells(const v1::AgentView& agent, absl::Time now) {
  const v1::AgentCapabilities& capabilities = agent.capabilities();
  std::string agent_state = v1::AgentState_Name(agent.state());
  return {capabilities.agent_id(),
          capabilities.hostname(),
          absl::AsciiStrToLower(agent_state.substr(sizeof("AGENT_STATE_") - 1)),
          Gpus(capabilities),
          Bytes(capabilities.cpu_memory_bytes()),
          capabilities.nvme_cache_path().empty()
              ? "-"
              : absl::StrCat(Bytes(capabilities.nvme_free_bytes()), " free"),
          capabilities.profiles().empty() ? "-" : absl::StrJoin(capabilities.profiles(), ","),
          agent.running_scenario_id().empty()
              ? "-"
              : absl::StrCat(agent.running_job_id(), "/", agent.running_scenario_id()),
          Age(agent.last_heartbeat_unix_ms(), now),
          CannotRun(capabilities)};
}

absl::Status ListAgents(const AgentsFlags& flags, KvctlContext* context) {
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      ConnectController(flags.connection, *context);
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::ListAgentsResponse> response = (*client)->ListAgents();
  if (!response.ok()) return response.status();
  std::ostream& out = *context->out;
  if (flags.format == OutputFormat::kJson) {
    nlohmann::ordered_json json = nlohmann::ordered_json::array();
    for (const v1::AgentView& agent : response->agents()) {
      json.push_back(nlohmann::ordered_json::parse(ProtoToJson(agent)));
    }
    out << json.dump(2) << "\n";
    return absl::OkStatus();
  }
  const absl::Time now = context->now();
  std::vector<std::vector<std::string>> rows;
  for (const v1::AgentView& agent : response->agents()) rows.push_back(Cells(agent, now));
  if (flags.format == OutputFormat::kCsv) {
    PrintCsv(Headers(), rows, out);
    return absl::OkStatus();
  }
  TablePrinter table(Headers());
  for (auto& row : rows) table.AddRow(std::move(row));
  table.Print(out);
  PrintPreflightFailures({response->agents().begin(), response->agents().end()}, out);
  return absl::OkStatus();
}

}  // namespace

void AddAgentsCommand(CLI::App* app, KvctlContext* context) {
  CLI::App* command = app->add_subcommand("agents", "List the agents the controller knows");
  auto flags = std::make_shared<AgentsFlags>();
  AddOutputOption(command, &flags->format,
                  {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv});
  AddConnectionFlags(command, &flags->connection);
  command->callback([context, flags] {
    context->action = [context, flags] { return ListAgents(*flags, context); };
  });
}

}  // namespace kvbench::kvctl
