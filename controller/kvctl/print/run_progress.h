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
  // `label_attempts`: each line names the attempt its event is about ("00-gpu-c2 #2"), for a
  // watch of a controller whose scenarios may be requeued.
  RunProgress(std::ostream* out, bool terminal, bool label_attempts = false);

  void Begin(const std::string& job_id, const client::JobPlan& plan, const std::string& out_dir);
  void OnEvent(const v1::Event& event);
  // The results table of the ended job (its scenarios in the job's order) and where results went.
  void End(const v1::Job& job);

 private:
  std::string Line(const std::string& scenario_id) const;
  // The scenario id, with " #attempt" when labelling attempts (and the event names one).
  std::string Label(const v1::Event& event) const;

  std::ostream* out_;
  bool terminal_;
  bool label_attempts_;
  std::string results_dir_;
  int sessions_total_ = 0;
  std::map<std::string, v1::Progress> last_;   // by scenario id
  std::map<std::string, std::string> labels_;  // the label of its last progress, by scenario id
};

}  // namespace kvbench::kvctl
