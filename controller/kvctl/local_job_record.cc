#include "controller/kvctl/local_job_record.h"

#include "controller/core/job_outcome.h"
#include "controller/results/scenario_run.h"
#include "controller/results/validity.h"

namespace kvbench::kvctl {

v1::Job LocalJob(const std::string& job_id, const client::JobPlan& plan, absl::Time submitted) {
  v1::Job job;
  job.set_job_id(job_id);
  *job.mutable_spec() = plan.spec;
  job.set_state(v1::JOB_STATE_RUNNING);
  job.set_submit_unix_ms(absl::ToUnixMillis(submitted));
  job.set_start_unix_ms(absl::ToUnixMillis(submitted));
  for (const v1::Scenario& scenario : plan.scenarios) {
    v1::ScenarioStatus* status = job.add_scenarios();
    *status->mutable_scenario() = scenario;
    status->set_state(v1::SCENARIO_STATE_PENDING);
    status->set_agent_id("local");
    status->set_attempt(1);
  }
  return job;
}

void RecordOutcomes(const std::vector<agent::LocalScenarioOutcome>& outcomes, absl::Time ended,
                    v1::Job* job) {
  for (size_t i = 0; i < outcomes.size() && i < static_cast<size_t>(job->scenarios_size()); ++i) {
    const agent::LocalScenarioOutcome& outcome = outcomes[i];
    v1::ScenarioStatus* status = job->mutable_scenarios(static_cast<int>(i));
    if (outcome.status.ok()) {
      status->set_state(v1::SCENARIO_STATE_SUCCEEDED);
      *status->mutable_result() = outcome.result;
      continue;
    }
    status->set_state(absl::IsCancelled(outcome.status) ? v1::SCENARIO_STATE_CANCELLED
                                                        : v1::SCENARIO_STATE_FAILED);
    status->set_error(std::string(outcome.status.message()));
  }
  std::vector<controller::ScenarioOutcome> scenarios;
  for (const v1::ScenarioStatus& status : job->scenarios()) {
    scenarios.push_back({status.scenario().scenario_id(), status.state(), status.error()});
  }
  const controller::JobOutcome outcome = controller::DecideJobOutcome(scenarios);
  job->set_state(outcome.state);
  job->set_error(outcome.error);
  job->set_end_unix_ms(absl::ToUnixMillis(ended));
  for (v1::Validity& validity : results::ComputeValidity(results::RunsOfJob(*job))) {
    *job->add_validity() = std::move(validity);
  }
}

absl::Status RunExitStatus(const v1::Job& job) {
  switch (job.state()) {
    case v1::JOB_STATE_SUCCEEDED:
      return absl::OkStatus();
    case v1::JOB_STATE_CANCELLED:
      return absl::CancelledError("cancelled; finished scenarios are written");
    default:
      return absl::AbortedError(job.error());
  }
}

}  // namespace kvbench::kvctl
