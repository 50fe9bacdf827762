#include "controller/results/scenario_run.h"

#include <algorithm>

namespace kvbench::results {

std::vector<ScenarioRun> RunsOfJob(const v1::Job& job) {
  std::vector<ScenarioRun> runs;
  runs.reserve(job.scenarios_size());
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    ScenarioRun& run = runs.emplace_back();
    run.spec = job.spec();
    run.scenario = status.scenario();
    run.state = status.state();
    run.error = status.error();
    if (status.has_result()) run.result = status.result();
  }
  std::stable_sort(runs.begin(), runs.end(), [](const ScenarioRun& a, const ScenarioRun& b) {
    return a.scenario.index() < b.scenario.index();
  });
  return runs;
}

}  // namespace kvbench::results
