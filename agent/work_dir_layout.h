#pragma once

#include <string>

#include "absl/status/status.h"

namespace kvbench::agent {

// The agent's on-disk layout, drawn in one place (STYLE.md rule 5); every path is built here.
// Two shapes, one agent (agent.h):
//
// kv-agent (ForWorkDir):
//   <work_dir>/                           locked (one kv-agent per folder) and private (0700)
//     scenarios/<job_id>/<scenario_id>/   one dir per scenario run: logs/, requests.jsonl,
//                                         samples.jsonl, result.json, configs it rendered
//     scenarios/<job_id>/<scenario_id>.attempt-<n>/   the same for attempt n >= 2 (requeued)
//     run/                                pid files of supervised children (adopted or killed
//                                         after an agent restart)
//     spool/                              numbered events not yet acknowledged by the controller
//
// kvctl run (ForLocalRun), results where the user asked for them:
//   <out_dir>/<job_id>/<scenario_id>/     the same scenario dirs, beside the job's job.json
//   <out_dir>/.run/                       locked (one kvctl run per --out folder) and private:
//                                         pid files of every run of this --out folder, so a run
//                                         kills what a crashed earlier one left behind
//   <out_dir>/.run/<job_id>.spool/        the run's event spool
//
// The folder name of a scenario's attempt: the scenario id for the first attempt (and 0, unknown),
// "<scenario_id>.attempt-<n>" for a requeued attempt n, so a superseded attempt that is still
// tearing down never writes into its retry's files.
std::string AttemptDirName(const std::string& scenario_id, int attempt);

class WorkDirLayout {
 public:
  // kv-agent's layout under its work_dir.
  static WorkDirLayout ForWorkDir(const std::string& work_dir);
  // kvctl run's layout for one job's results under `out_dir`.
  static WorkDirLayout ForLocalRun(const std::string& out_dir, const std::string& job_id);

  // The folder the agent owns alone: locked for its life and private.
  const std::string& root() const { return root_; }
  // Who holds root()'s lock, as a second process refused it is told ("kv-agent").
  const std::string& owner() const { return owner_; }
  // What errors call root() before its path: "work_dir" (the config's field) or "".
  const std::string& root_label() const { return root_label_; }
  // Scenario folders: <scenarios_dir>/<job_id>/<attempt>/.
  const std::string& scenarios_dir() const { return scenarios_dir_; }
  // The folder of one attempt (AttemptDirName); attempt 1 by default.
  std::string ScenarioDir(const std::string& job_id, const std::string& scenario_id,
                          int attempt = 1) const;
  std::string ScenarioLogDir(const std::string& job_id, const std::string& scenario_id,
                             int attempt = 1) const;
  const std::string& run_dir() const { return run_dir_; }
  const std::string& spool_dir() const { return spool_dir_; }

  // Creates the root and its fixed subdirectories (mode 0755, the root made private by the
  // agent); FAILED_PRECONDITION naming the path when it cannot.
  absl::Status EnsureCreated() const;

 private:
  WorkDirLayout() = default;

  std::string root_;
  std::string owner_;
  std::string root_label_;  // "work_dir" or ""
  std::string scenarios_dir_;
  std::string run_dir_;
  std::string spool_dir_;
};

}  // namespace kvbench::agent
