#pragma once

#include <string>

#include "absl/status/status.h"

namespace kvbench::agent {

// The agent's on-disk layout, drawn in one place (STYLE.md rule 5); every path is built here.
//
//   <work_dir>/
//     scenarios/<job_id>/<scenario_id>/   one dir per scenario run: logs/, requests.jsonl,
//                                         samples.jsonl, result.json, configs it rendered
//     run/                                pid files of supervised children (adopted or killed
//                                         after an agent restart)
//     spool/                              numbered events not yet acknowledged by the controller
class WorkDirLayout {
 public:
  explicit WorkDirLayout(std::string work_dir);

  const std::string& root() const { return root_; }
  std::string scenarios_dir() const;
  std::string ScenarioDir(const std::string& job_id, const std::string& scenario_id) const;
  std::string ScenarioLogDir(const std::string& job_id, const std::string& scenario_id) const;
  std::string run_dir() const;
  std::string spool_dir() const;

  // Creates the root and its fixed subdirectories (mode 0755); FAILED_PRECONDITION naming the
  // path when it cannot.
  absl::Status EnsureCreated() const;

 private:
  std::string root_;
};

}  // namespace kvbench::agent
