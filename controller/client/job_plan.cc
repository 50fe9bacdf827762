#include "controller/client/job_plan.h"

#include "common/status/status_macros.h"
#include "controller/spec/job_spec_loader.h"
#include "controller/spec/scenario_expander.h"

namespace kvbench::client {

absl::StatusOr<JobPlan> PlanJobFile(const std::string& path, const std::vector<std::string>& sets) {
  JobPlan plan;
  KV_ASSIGN_OR_RETURN(plan.spec, spec::LoadJobSpecFile(path, sets));
  plan.scenarios = spec::ExpandScenarios(plan.spec, /*job_id=*/"");
  return plan;
}

}  // namespace kvbench::client
