#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/scenario/scenario_driver.h"
#include "agent/scenario_environment_factory.h"
#include "kvbench/v1/job.pb.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {

// The agent's real seams (ScenarioEnvironmentFactory, as kv-agent and kvctl run compose them) for
// running one scenario in a test: the profiles (the shipped ones unless the test gives its own),
// this build's binaries, the demo's datasets read in place from deploy/examples/datasets, a temp
// work dir, and every event recorded.
class ScenarioHarness {
 public:
  explicit ScenarioHarness(std::optional<std::vector<v1::Profile>> profiles = std::nullopt,
                           std::optional<std::string> search_path = std::nullopt);

  // A simulated job on the airline sessions: `replicas` replicas, 5 rounds, OSL 16.
  static v1::JobSpec SimJob(int replicas, double time_scale);
  static v1::Scenario MakeScenario(v1::Tier tier, int concurrency, int sessions);

  agent::ScenarioEnvironment Environment(const v1::Scenario& scenario);
  // Another factory over the same seams and folders (for an ThreadScenarioWorker).
  std::unique_ptr<agent::ScenarioEnvironmentFactory> NewEnvironments() const;
  std::string dir() const { return dir_.path(); }
  agent::ScenarioEventSink Sink();
  std::vector<v1::Event> events() const;

  std::string ScenarioDir(const v1::Scenario& scenario) const;
  // Waits (up to 90 s) until the scenario's requests.jsonl has `lines` lines (the replay is under
  // way); false when it did not.
  bool WaitForRecords(const v1::Scenario& scenario, long lines) const;
  std::string ReadLog(const v1::Scenario& scenario, const std::string& process) const;
  std::string run_dir() const { return dir_.File("run"); }

  // Pids of live processes whose parent is this test process.
  static std::vector<int> LiveChildren();
  // Pids of live processes whose command line contains `text`.
  static std::vector<int> ProcessesMatching(const std::string& text);

 private:
  TempDir dir_;
  const std::optional<std::vector<v1::Profile>> profiles_;
  const std::optional<std::string> search_path_;
  std::unique_ptr<agent::ScenarioEnvironmentFactory> environments_;
  mutable std::mutex mu_;
  std::vector<v1::Event> events_;  // guarded by mu_
};

}  // namespace kvbench::testing
