#pragma once

// The scenarios of a job the report charts: those with a result, in (agent, concurrency, tier)
// order, and the job's concurrencies, tiers and agents. A FAN_OUT_EACH job ran its matrix on
// several agents: the report then charts each agent apart (ForAgent) and names it.

#include <string>
#include <vector>

#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::report {

struct ReportRun {
  v1::Tier tier = v1::TIER_UNSPECIFIED;
  int concurrency = 0;
  // The agent a FAN_OUT_EACH scenario is pinned to ("" for any other job's: its scenarios may
  // run on any agent, and are charted together).
  std::string agent;
  const v1::ScenarioResult* result = nullptr;  // into the job; never null
};

class ReportRuns {
 public:
  // `job` must outlive this.
  explicit ReportRuns(const v1::Job& job);

  const std::vector<ReportRun>& runs() const { return runs_; }
  // The spec's concurrencies and those of the results, ascending, distinct.
  const std::vector<int>& concurrencies() const { return concurrencies_; }
  // The spec's tiers and those of the results, in enum order (GPU, CPU_RAM, NVME).
  const std::vector<v1::Tier>& tiers() const { return tiers_; }
  // The pinned agents of the results, sorted, distinct ({""} for a job not fanned out).
  const std::vector<std::string>& agents() const { return agents_; }
  // Whether the results come from more than one agent: tables then show an agent column.
  bool several_agents() const { return agents_.size() > 1; }
  // The run of this tier at this concurrency, or null.
  const v1::ScenarioResult* Find(v1::Tier tier, int concurrency) const;

  // The runs of one agent (same concurrencies and tiers), whose charts' titles name it.
  ReportRuns ForAgent(const std::string& agent) const;
  // ", agent sim-a" for the runs of one agent of several (ForAgent), else "".
  const std::string& title_suffix() const { return title_suffix_; }

 private:
  ReportRuns() = default;

  std::vector<ReportRun> runs_;
  std::vector<int> concurrencies_;
  std::vector<v1::Tier> tiers_;
  std::vector<std::string> agents_;
  std::string title_suffix_;
};

}  // namespace kvbench::report
