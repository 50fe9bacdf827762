#pragma once

#include <prometheus/registry.h>

#include <map>
#include <memory>
#include <string>
#include <thread>

#include "agent/link/controller_link.h"
#include "agent/link/event_spool.h"
#include "common/loop/event_loop.h"
#include "common/time/clock.h"
#include "controller/controller.h"
#include "kvbench/v1/controller_service.grpc.pb.h"
#include "tests/fakes/fake_scenario_worker.h"
#include "tests/support/tcp_proxy.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {

// One kv-controller and several agents in one process over loopback (tests' "cluster" layer):
// the real Controller (SQLite store, job manager, gRPC services) on its own loop thread, and
// agents made of the real ControllerLink and EventSpool with a FakeScenarioWorker, each dialing
// the controller through its own TcpProxy so a test can cut one agent's stream. Insecure: the
// security tests cover TLS and tokens.
class ClusterHarness {
 public:
  struct Agent {
    std::string id;
    std::unique_ptr<TcpProxy> proxy;
    std::string spool_dir;
    std::unique_ptr<agent::EventSpool> spool;
    std::unique_ptr<FakeScenarioWorker> runner;
    std::unique_ptr<agent::ControllerLink> link;
  };

  // `heartbeat_timeout` is the controller's (agents beat at a third of it).
  explicit ClusterHarness(absl::Duration heartbeat_timeout = absl::Seconds(3),
                          int max_scenario_attempts = 3);
  ~ClusterHarness();

  // Starts (or restarts, on the same port and SQLite file) the controller.
  void StartController();
  void StopController();

  // An agent with the simulator profiles; `nvme` gives it an NVMe cache dir.
  Agent& AddAgent(const std::string& id, bool nvme);
  // The agent process dies for good: its link stops without a word, its runner with it.
  void KillAgent(const std::string& id);
  Agent& agent(const std::string& id) { return *agents_.at(id); }

  v1::Controller::Stub& client() { return *stub_; }
  // host:port of the controller's gRPC server.
  std::string address() const { return controller_->address(); }
  // Submits `spec`; the job id.
  std::string Submit(const v1::JobSpec& spec);
  v1::Job GetJob(const std::string& job_id);
  // Waits until the job reaches `state` (or any terminal state); the job as last read.
  v1::Job WaitForJob(const std::string& job_id, v1::JobState state,
                     absl::Duration timeout = absl::Seconds(20));
  std::string data_dir() const { return data_dir_; }

 private:
  TempDir dir_;
  const std::string data_dir_;
  const absl::Duration heartbeat_timeout_;
  const int max_scenario_attempts_;
  const int port_;
  RealClock clock_;
  prometheus::Registry registry_;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<controller::Controller> controller_;
  std::thread loop_thread_;
  std::unique_ptr<v1::Controller::Stub> stub_;
  // The agents' links run on one loop of their own (real timers).
  EventLoop agent_loop_{"agents"};
  std::thread agent_loop_thread_;
  std::map<std::string, std::unique_ptr<Agent>> agents_;
};

// A valid SIM job: `tiers` x `concurrency` scenarios on the tau2 dataset.
v1::JobSpec SimJob(const std::string& name, std::vector<v1::Tier> tiers,
                   std::vector<int> concurrency);

}  // namespace kvbench::testing
