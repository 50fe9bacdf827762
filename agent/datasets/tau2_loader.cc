#include "agent/datasets/tau2_loader.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/datasets/json_input.h"
#include "agent/datasets/tau2_message_converter.h"
#include "common/status/status_macros.h"

namespace kvbench::datasets {
namespace {

using OrderedJson = nlohmann::ordered_json;

struct RunInfo {
  std::string system_prompt;
  std::string domain;
  std::string model;
};

absl::StatusOr<RunInfo> ReadInfo(const OrderedJson& root, const std::string& path) {
  if (!root.is_object()) return FieldError(path, "(root)", "expected a tau2 Results object");
  auto info = root.find("info");
  if (info == root.end() || !info->is_object()) return FieldError(path, "info", "expected an object");
  auto env = info->find("environment_info");
  if (env == info->end() || !env->is_object()) {
    return FieldError(path, "info.environment_info", "expected an object");
  }
  auto policy = env->find("policy");
  if (policy == env->end() || !policy->is_string()) {
    return FieldError(path, "info.environment_info.policy", "expected a string");
  }
  RunInfo run;
  run.system_prompt = Tau2SystemPrompt(policy->get<std::string>());
  run.domain = StringOr(*env, "domain_name", "tau2");
  auto agent = info->find("agent_info");
  if (agent != info->end() && agent->is_object()) run.model = StringOr(*agent, "llm", "");
  return run;
}

std::string SessionId(const OrderedJson& simulation, const RunInfo& run) {
  auto task = simulation.find("task_id");
  auto trial = simulation.find("trial");
  if (task == simulation.end() || !task->is_string() || trial == simulation.end() ||
      !trial->is_number_integer()) {
    return StringOr(simulation, "id", "");
  }
  return absl::StrCat("tau2__", run.domain, "__task", task->get<std::string>(), "__trial",
                      trial->get<int64_t>(), "__", run.model);
}

// The completion tokens of an LLM-generated assistant message, or -1 when it is not one.
absl::StatusOr<int> CompletionTokens(const OrderedJson& message, absl::string_view origin) {
  if (StringOr(message, "role", "") != "assistant") return -1;
  auto usage = message.find("usage");
  if (usage == message.end() || usage->is_null()) return -1;
  auto tokens = usage->is_object() ? usage->find("completion_tokens") : usage->end();
  if (!usage->is_object() || tokens == usage->end() || !tokens->is_number_integer() ||
      tokens->get<int64_t>() < 0) {
    return FieldError(origin, "usage.completion_tokens", "expected a non-negative integer");
  }
  return static_cast<int>(tokens->get<int64_t>());
}

// Builds the session of one simulation (rounds may come out empty: the caller decides).
absl::StatusOr<Session> ReadSimulation(const OrderedJson& messages, const RunInfo& run,
                                       const std::string& origin) {
  Session session;
  session.model = run.model;
  nlohmann::json seen = nlohmann::json::array({{{"role", "system"}, {"content", run.system_prompt}}});
  std::map<std::string, std::string> tool_names;
  double last_input_time = 0;
  double previous_call_time = 0;
  bool had_call = false;
  for (size_t i = 0; i < messages.size(); ++i) {
    const OrderedJson& message = messages[i];
    const std::string where = absl::StrCat(origin, "/", i);
    if (!message.is_object()) return FieldError(where, "messages", "expected a message object");
    if (!message.contains("role") || !message["role"].is_string()) {
      return FieldError(where, "role", "expected a string");
    }
    if (!Tau2AgentSeesMessage(message)) continue;
    KV_ASSIGN_OR_RETURN(int tokens, CompletionTokens(message, where));
    KV_ASSIGN_OR_RETURN(double time, ParseTau2Timestamp(message, where));
    if (tokens >= 0) {
      Round round;
      round.messages = seen;
      round.output_tokens = tokens;
      round.pre_gap_s = had_call ? last_input_time - previous_call_time : 0.0;
      round.origin = where;
      session.rounds.push_back(std::move(round));
      previous_call_time = time;
      had_call = true;
    }
    KV_ASSIGN_OR_RETURN(nlohmann::json converted, ConvertTau2Message(message, tool_names, where));
    seen.push_back(std::move(converted));
    last_input_time = time;
  }
  return session;
}

}  // namespace

absl::StatusOr<Dataset> LoadTau2(const std::string& path) {
  KV_ASSIGN_OR_RETURN(OrderedJson root, ParseOrderedJsonFile(path));
  KV_ASSIGN_OR_RETURN(RunInfo run, ReadInfo(root, path));
  auto simulations = root.find("simulations");
  if (simulations == root.end() || !simulations->is_array()) {
    return FieldError(path, "simulations", "expected a list of simulations");
  }
  Dataset dataset;
  dataset.code = "tau2-bench-v1";
  for (size_t i = 0; i < simulations->size(); ++i) {
    const OrderedJson& simulation = (*simulations)[i];
    const std::string origin = absl::StrCat(path, "#", i);
    if (!simulation.is_object()) return FieldError(origin, "simulations", "expected an object");
    auto messages = simulation.find("messages");
    if (messages == simulation.end() || messages->is_null()) {
      ++dataset.skipped_sessions;
      dataset.skip_reasons.push_back(
          absl::StrCat(origin, ": messages is null (no text dialogue, e.g. a voice run)"));
      continue;
    }
    if (!messages->is_array()) return FieldError(origin, "messages", "expected a list or null");
    KV_ASSIGN_OR_RETURN(Session session, ReadSimulation(*messages, run, origin));
    session.id = SessionId(simulation, run);
    if (session.rounds.empty()) {
      ++dataset.skipped_sessions;
      dataset.skip_reasons.push_back(absl::StrCat(
          origin, ": no agent LLM call (termination_reason ",
          StringOr(simulation, "termination_reason", "unknown"), ")"));
      continue;
    }
    dataset.sessions.push_back(std::move(session));
  }
  if (dataset.sessions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no simulation with an agent LLM call"));
  }
  return dataset;
}

}  // namespace kvbench::datasets
