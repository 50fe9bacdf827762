#include "controller/core/job_table.h"

namespace kvbench::controller {
namespace {

size_t IndexOf(const JobRecord& job, const ScenarioRecord& scenario) {
  return static_cast<size_t>(&scenario - job.scenarios.data());
}

}  // namespace

bool IsActiveScenarioState(v1::ScenarioState state) {
  return state == v1::SCENARIO_STATE_ASSIGNED || state == v1::SCENARIO_STATE_RUNNING;
}

JobRecord& JobTable::Add(JobRecord job) {
  const std::string job_id = job.job_id;
  submit_seq_[job_id] = static_cast<int64_t>(submit_order_.size());
  submit_order_.push_back(job_id);
  JobRecord& added = jobs_.emplace(job_id, std::move(job)).first->second;
  for (size_t i = 0; i < added.scenarios.size(); ++i) Index(added, i);
  return added;
}

void JobTable::AppendScenarios(JobRecord& job, const std::vector<v1::Scenario>& scenarios) {
  for (const v1::Scenario& scenario : scenarios) {
    job.scenarios.emplace_back().scenario = scenario;
    Index(job, job.scenarios.size() - 1);
  }
}

JobRecord* JobTable::Find(const std::string& job_id) {
  auto it = jobs_.find(job_id);
  return it == jobs_.end() ? nullptr : &it->second;
}

const JobRecord* JobTable::Find(const std::string& job_id) const {
  auto it = jobs_.find(job_id);
  return it == jobs_.end() ? nullptr : &it->second;
}

ScenarioRecord* JobTable::FindScenario(JobRecord& job, const std::string& scenario_id) {
  return const_cast<ScenarioRecord*>(FindScenario(static_cast<const JobRecord&>(job), scenario_id));
}

const ScenarioRecord* JobTable::FindScenario(const JobRecord& job, const std::string& scenario_id) {
  for (const ScenarioRecord& scenario : job.scenarios) {
    if (scenario.scenario.scenario_id() == scenario_id) return &scenario;
  }
  return nullptr;
}

ScenarioRecord* JobTable::Resolve(const ScenarioRef& ref) {
  JobRecord* job = Find(ref.first);
  if (job == nullptr || ref.second >= job->scenarios.size()) return nullptr;
  return &job->scenarios[ref.second];
}

void JobTable::Move(JobRecord& job, ScenarioRecord& scenario, v1::ScenarioState state,
                    const std::string& agent_id) {
  const size_t index = IndexOf(job, scenario);
  Unindex(job, index);
  scenario.state = state;
  scenario.agent_id = agent_id;
  Index(job, index);
}

void JobTable::Index(const JobRecord& job, size_t index) {
  const ScenarioRecord& scenario = job.scenarios[index];
  if (scenario.state == v1::SCENARIO_STATE_PENDING) pending_.emplace(job.job_id, index);
  if (IsActiveScenarioState(scenario.state)) {
    active_by_agent_[scenario.agent_id].emplace(job.job_id, index);
  }
}

void JobTable::Unindex(const JobRecord& job, size_t index) {
  const ScenarioRecord& scenario = job.scenarios[index];
  const ScenarioRef ref(job.job_id, index);
  pending_.erase(ref);
  auto agent = active_by_agent_.find(scenario.agent_id);
  if (agent == active_by_agent_.end()) return;
  agent->second.erase(ref);
  if (agent->second.empty()) active_by_agent_.erase(agent);
}

std::vector<ScenarioRef> JobTable::ActiveOn(const std::string& agent_id) const {
  auto it = active_by_agent_.find(agent_id);
  if (it == active_by_agent_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

std::vector<std::pair<std::string, ScenarioRef>> JobTable::AllActive() const {
  std::vector<std::pair<std::string, ScenarioRef>> active;
  for (const auto& [agent_id, refs] : active_by_agent_) {
    for (const ScenarioRef& ref : refs) active.emplace_back(agent_id, ref);
  }
  return active;
}

int64_t JobTable::SubmitSeq(const std::string& job_id) const {
  auto it = submit_seq_.find(job_id);
  return it == submit_seq_.end() ? -1 : it->second;
}

void JobTable::SetProgress(const std::string& job_id, const std::string& scenario_id,
                           const v1::Progress& progress) {
  progress_[{job_id, scenario_id}] = progress;
}

void JobTable::ClearProgress(const std::string& job_id, const std::string& scenario_id) {
  progress_.erase({job_id, scenario_id});
}

const v1::Progress* JobTable::Progress(const std::string& job_id,
                                       const std::string& scenario_id) const {
  auto it = progress_.find({job_id, scenario_id});
  return it == progress_.end() ? nullptr : &it->second;
}

}  // namespace kvbench::controller
