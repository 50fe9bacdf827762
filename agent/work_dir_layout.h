#pragma once

#include <string>

#include "absl/status/status.h"

namespace kvbench::agent {

// The agent's on-disk layout, drawn in one place (STYLE.md rule 5); every path is built here.
//
//   <work_dir>/
//     scenarios/<job_id>/<scenario_id>/   one dir per scenario run: logs/, requests.jsonl,
//                                         samples.jsonl, result.json, configs it rendered
//     scenarios/<job_id>/<scenario_id>.attempt-<n>/   the same for attempt n >= 2 (requeued)
//     run/                                pid files of supervised children (adopted or killed
//                                         after an agent restart)
//     spool/                              numbered events not yet acknowledged by the controller
// The folder name of a scenario's attempt: the scenario id for the first attempt (and 0, unknown),
// "<scenario_id>.attempt-<n>" for a requeued attempt n, so a superseded attempt that is still
// tearing down never writes into its retry's files (issue #18). kvctl run names its scenario
// folders the same way.
std::string AttemptDirName(const std::string& scenario_id, int attempt);

class WorkDirLayout {
 public:
  explicit WorkDirLayout(std::string work_dir);

  const std::string& root() const { return root_; }
  std::string scenarios_dir() const;
  // The folder of one attempt (AttemptDirName); attempt 1 by default.
  std::string ScenarioDir(const std::string& job_id, const std::string& scenario_id,
                          int attempt = 1) const;
  std::string ScenarioLogDir(const std::string& job_id, const std::string& scenario_id,
                             int attempt = 1) const;
  std::string run_dir() const;
  std::string spool_dir() const;

  // Creates the root and its fixed subdirectories (mode 0755); FAILED_PRECONDITION naming the
  // path when it cannot.
  absl::Status EnsureCreated() const;

 private:
  std::string root_;
};

}  // namespace kvbench::agent
