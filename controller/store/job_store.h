#pragma once

// The controller's jobs: each job with its scenarios and where they stand, the results agents
// reported for them, and the submitters' idempotency keys (request ids). Every method is safe to
// call from any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kvbench/v1/event.pb.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::controller {

// Page size ListJobs uses when the caller passes 0, and the most it ever returns.
inline constexpr int kDefaultJobPageSize = 100;
inline constexpr int kMaxJobPageSize = 1000;

// One scenario of a job with where it stands.
struct ScenarioRecord {
  v1::Scenario scenario;
  v1::ScenarioState state = v1::SCENARIO_STATE_PENDING;
  std::string reason;    // why it is in `state` (empty when nothing to say)
  int32_t attempt = 0;   // 0 until first assigned; incremented by the scheduler on each requeue
  std::string agent_id;  // the agent it is (or was last) assigned to; empty if never
};

struct JobRecord {
  std::string job_id;
  v1::JobSpec spec;
  v1::JobState state = v1::JOB_STATE_QUEUED;
  int32_t priority = 0;
  absl::Time submit_time;
  std::string request_id;  // the submitter's idempotency key; empty if none
  // When the first scenario was assigned and when the job ended; absl::InfinitePast() if not yet.
  absl::Time start_time = absl::InfinitePast();
  absl::Time end_time = absl::InfinitePast();
  std::string error;                      // why the job failed or was cancelled
  std::vector<ScenarioRecord> scenarios;  // in scenario index order
};

// A job's state with its times and error, as UpdateJob writes them.
struct JobStatusUpdate {
  v1::JobState state = v1::JOB_STATE_QUEUED;
  absl::Time start_time = absl::InfinitePast();
  absl::Time end_time = absl::InfinitePast();
  std::string error;
};

// Which jobs ListJobs returns; every unset field matches all.
struct JobFilter {
  std::optional<v1::JobState> state;
  std::string name;  // exact JobSpec.name; empty: any
};

struct JobPage {
  std::vector<JobRecord> jobs;  // in submission order
  std::string next_page_token;  // empty: no more pages
};

struct StoredResult {
  std::string scenario_id;
  v1::ScenarioResult result;
};

class JobStore {
 public:
  virtual ~JobStore() = default;

  // Stores a new job in JOB_STATE_QUEUED with its scenarios PENDING at attempt 0, all at once.
  // ALREADY_EXISTS if `job_id` or a non-empty `request_id` is taken; INVALID_ARGUMENT for an
  // empty id or scenario id.
  virtual absl::Status PutJob(const std::string& job_id, const v1::JobSpec& spec,
                              const std::vector<v1::Scenario>& scenarios, int32_t priority,
                              absl::Time submit_time, const std::string& request_id) = 0;
  // Appends `scenarios` to an existing job, each PENDING at attempt 0 (a capacity search's next
  // probes), all or none. NOT_FOUND for an unknown job; INVALID_ARGUMENT for an empty scenario id
  // or one the job already has.
  virtual absl::Status AddScenarios(const std::string& job_id,
                                    const std::vector<v1::Scenario>& scenarios) = 0;
  // The job submitted with `request_id`, or "" if none.
  virtual absl::StatusOr<std::string> JobIdForRequest(const std::string& request_id) = 0;
  // NOT_FOUND if no such job.
  virtual absl::StatusOr<JobRecord> GetJob(const std::string& job_id) = 0;
  // page_size 0 means kDefaultJobPageSize; larger than kMaxJobPageSize is clamped. page_token is
  // "" for the first page, else a next_page_token from an earlier call (INVALID_ARGUMENT if not).
  virtual absl::StatusOr<JobPage> ListJobs(const JobFilter& filter, int page_size,
                                           const std::string& page_token) = 0;
  // NOT_FOUND if no such job.
  virtual absl::Status SetJobState(const std::string& job_id, v1::JobState state) = 0;
  // Sets the state, the times and the error at once. NOT_FOUND if no such job.
  virtual absl::Status UpdateJob(const std::string& job_id, const JobStatusUpdate& update) = 0;
  // NOT_FOUND if the job has no such scenario.
  virtual absl::Status SetScenarioState(const std::string& job_id, const std::string& scenario_id,
                                        v1::ScenarioState state, const std::string& reason,
                                        int32_t attempt, const std::string& agent_id) = 0;

  // Stores a scenario's result; a later call for the same scenario replaces it.
  virtual absl::Status PutResult(const std::string& job_id, const std::string& scenario_id,
                                 const v1::ScenarioResult& result) = 0;
  // The job's results ordered by scenario id; empty if none (also for an unknown job).
  virtual absl::StatusOr<std::vector<StoredResult>> GetResults(const std::string& job_id) = 0;
};

}  // namespace kvbench::controller
