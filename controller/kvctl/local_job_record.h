#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "agent/local/local_job_run.h"
#include "controller/client/job_plan.h"
#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::kvctl {

// The job as a local run's job.json records it (client/local_job_files.h): spec, scenarios,
// their states and errors, times; `kvctl results|compare|report DIR` read it back. RUNNING, every
// scenario PENDING on agent "local".
v1::Job LocalJob(const std::string& job_id, const client::JobPlan& plan, absl::Time submitted);

// The outcomes into the job (in the plan's order): each scenario's state, error and result, the
// job's state and error by the controller's rule (controller/core/job_outcome.h) and its verdicts.
// A cancelled scenario's status is CANCELLED; any other error is FAILED.
void RecordOutcomes(const std::vector<agent::LocalScenarioOutcome>& outcomes, absl::Time ended,
                    v1::Job* job);

// What `kvctl run` exits with for an ended job: OK when it succeeded, CANCELLED (exit 7) when it
// was cancelled, ABORTED with the job's error when it failed.
absl::Status RunExitStatus(const v1::Job& job);

}  // namespace kvbench::kvctl
