#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "controller/client/job_plan.h"
#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::kvctl {

// What `kvctl run` prints: one line per phase change of each scenario (plain lines, for logs and
// pipes) or, on a terminal, one live progress line per scenario that ends in its outcome; then a
// tier comparison table (one row per scenario, grouped by concurrency) and where results went.
class RunProgress {
 public:
  RunProgress(std::ostream* out, bool terminal);

  void Begin(const std::string& job_id, const client::JobPlan& plan, const std::string& out_dir);
  void OnEvent(const v1::Event& event);
  // The results table of the ended job (its scenarios in the job's order) and where results went.
  void End(const v1::Job& job);

 private:
  std::string Line(const std::string& scenario_id) const;

  std::ostream* out_;
  bool terminal_;
  std::string results_dir_;
  int sessions_total_ = 0;
  std::map<std::string, v1::Progress> last_;  // by scenario id
};

}  // namespace kvbench::kvctl
