#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "controller/kvctl/print/run_progress.h"
#include "kvbench/v1/controller_service.pb.h"

namespace kvbench::kvctl {

// What `kvctl watch` prints, in the look of `kvctl run` (RunProgress): a job line, then per
// scenario one live progress line on a terminal, or one plain line per state or phase change
// (never per sample) otherwise; at the end the job's outcome and its results table. Events are
// taken once by position, so a resumed stream that repeats one prints nothing twice.
// It shows what the controller's state machine applied, each line with its attempt
// ("00-gpu-c2 #2 succeeded"): a superseded attempt's late events (stored, never applied: the
// agent came back after its scenario was requeued), a state change after the attempt's end, and
// an alert that is not the controller's own are skipped. The controller refuses such events at
// ingest; a log stored before it did may hold some.
class WatchProgress {
 public:
  WatchProgress(std::ostream* out, std::ostream* err, bool terminal);

  void Begin(const v1::Job& job);
  // Takes one streamed event; ignores one at or before the last position seen.
  void OnResponse(const v1::WatchJobResponse& response);
  // The stream broke; the watch resumes after last_position() once `backoff` has passed.
  void Resuming(const absl::Status& status, absl::Duration backoff);
  // The job is over: its state, error, and the results table.
  void End(const v1::Job& job);

  int64_t last_position() const { return last_position_; }
  // The job's state as the stream last reported it (UNSPECIFIED before any event).
  v1::JobState job_state() const { return job_state_; }

 private:
  std::ostream* out_;
  std::ostream* err_;
  bool terminal_;
  // Whether the state machine applied `event` (or would print it: logs, progress); updates the
  // attempt bookkeeping below.
  bool Applied(const v1::Event& event);

  RunProgress events_;
  // By scenario id: its latest attempt (from the controller's "assigned" events, or the
  // events themselves), and the attempt whose end was shown (0: none).
  std::map<std::string, int> attempt_;
  std::map<std::string, int> ended_;
  int64_t last_position_ = 0;
  v1::JobState job_state_ = v1::JOB_STATE_UNSPECIFIED;
};

}  // namespace kvbench::kvctl
