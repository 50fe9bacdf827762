#include "agent/link/controller_link.h"

#include <catch2/catch.hpp>
#include <memory>

#include "absl/strings/str_cat.h"
#include "agent/link/event_spool.h"
#include "common/log/logging.h"
#include "common/loop/event_loop.h"
#include "tests/component/agent/link/fake_agent_link_service.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_scenario_worker.h"
#include "tests/support/temp_dir.h"
#include "tests/support/unused_port.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

using agent::ControllerLink;
using agent::ControllerLinkOptions;
using agent::EventSpool;

constexpr char kAgentId[] = "agent-1";

v1::Assignment MakeAssignment(const std::string& scenario_id, int concurrency) {
  v1::Assignment assignment;
  assignment.mutable_scenario()->set_scenario_id(scenario_id);
  assignment.mutable_scenario()->set_job_id("job-1");
  assignment.mutable_scenario()->set_tier(v1::CPU_RAM);
  assignment.mutable_scenario()->set_concurrency(concurrency);
  assignment.mutable_spec()->set_name("link-test");
  assignment.set_attempt(1);
  return assignment;
}

// What a user of the stream sees of a scenario: the kind of each event, in seq order.
std::vector<std::string> Kinds(const std::vector<v1::Event>& events) {
  std::vector<std::string> kinds;
  for (const v1::Event& event : events) {
    if (event.has_state_change()) {
      kinds.push_back(v1::ScenarioState_Name(event.state_change().state()));
    } else if (event.has_progress()) {
      kinds.push_back("progress");
    } else if (event.has_result()) {
      kinds.push_back("result");
    } else {
      kinds.push_back("other");
    }
  }
  return kinds;
}

const std::vector<std::string> kSucceededKinds = {"SCENARIO_STATE_RUNNING", "progress", "result",
                                                  "SCENARIO_STATE_SUCCEEDED"};

// Seqs are consecutive, each once.
bool ConsecutiveSeqs(const std::vector<v1::Event>& events, int64_t first) {
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].seq() != first + static_cast<int64_t>(i)) return false;
  }
  return true;
}

// One agent's link parts, dialing the fake controller.
struct TestAgent {
  TestAgent(const std::string& spool_dir, const std::string& address, FakeClock* clock) {
    loop_thread = std::thread([this] { loop.Run(); });
    absl::StatusOr<std::unique_ptr<EventSpool>> opened = EventSpool::Open(spool_dir);
    REQUIRE(opened.ok());
    spool = *std::move(opened);
    runner = std::make_unique<FakeScenarioWorker>();
    ControllerLinkOptions options;
    options.agent_id = kAgentId;
    options.controller_address = address;
    options.insecure = true;
    options.heartbeat_interval = absl::Milliseconds(50);
    options.backoff_initial = absl::Milliseconds(10);
    options.backoff_max = absl::Milliseconds(100);
    v1::AgentCapabilities capabilities;
    capabilities.set_agent_id(kAgentId);
    capabilities.set_hostname("node-1");
    capabilities.set_cpu_cores(8);
    capabilities.add_profiles("sim-vllm");
    (*capabilities.mutable_labels())["rack"] = "r1";
    absl::StatusOr<std::unique_ptr<ControllerLink>> created =
        ControllerLink::Create(options, capabilities, spool.get(), runner.get(), clock, &loop);
    REQUIRE(created.ok());
    link = *std::move(created);
  }
  ~TestAgent() {
    link->Stop();
    runner->Shutdown();
    loop.Stop();
    loop_thread.join();
  }

  // The link's executor: real timers (the link's heartbeats and backoff), the fake clock only
  // for the timestamps it writes.
  EventLoop loop{"agent-link-test"};
  std::thread loop_thread;

  std::unique_ptr<EventSpool> spool;
  std::unique_ptr<FakeScenarioWorker> runner;
  std::unique_ptr<ControllerLink> link;
};

TEST_CASE("ControllerLink registers with its capabilities and heartbeats", "[link]") {
  TempDir dir;
  FakeClock clock;
  FakeControllerServer server;
  TestAgent agent(dir.File("spool"), server.address(), &clock);
  agent.link->Start();
  REQUIRE(WaitFor([&] { return agent.link->connected(); }));
  CHECK(agent.link->connects() == 1);

  const std::vector<v1::Register> registrations = server.service().registrations();
  REQUIRE(registrations.size() == 1);
  const v1::AgentCapabilities& capabilities = registrations[0].capabilities();
  CHECK(capabilities.agent_id() == kAgentId);
  CHECK(capabilities.hostname() == "node-1");
  CHECK(capabilities.profiles_size() == 1);
  CHECK(capabilities.labels().at("rack") == "r1");
  CHECK(registrations[0].running().empty());

  REQUIRE(WaitFor([&] { return server.service().heartbeats().size() >= 3; }));
  const v1::Heartbeat heartbeat = server.service().heartbeats().front();
  CHECK(heartbeat.unix_ms() == FakeClock::kStartUnixSeconds * 1000);
  CHECK(heartbeat.running_scenario_id().empty());
}

TEST_CASE("An assignment runs and its events arrive numbered, then leave the spool", "[link]") {
  TempDir dir;
  FakeClock clock;
  FakeControllerServer server;
  TestAgent agent(dir.File("spool"), server.address(), &clock);
  agent.link->Start();
  REQUIRE(WaitFor([&] { return agent.link->connected(); }));

  REQUIRE(server.service().SendAssignment(MakeAssignment("00-cpu_ram-c4", 4)));
  REQUIRE(WaitFor([&] { return server.service().StoredEventsOf("00-cpu_ram-c4").size() == 4; }));
  const std::vector<v1::Event> events = server.service().StoredEventsOf("00-cpu_ram-c4");
  CHECK(Kinds(events) == kSucceededKinds);
  CHECK(ConsecutiveSeqs(events, 1));
  for (const v1::Event& event : events) {
    CHECK(event.agent_id() == kAgentId);
    CHECK(event.job_id() == "job-1");
    CHECK(event.unix_ms() == FakeClock::kStartUnixSeconds * 1000);
  }
  CHECK(events[1].progress().sessions_total() == 4);
  CHECK(events[2].result().sessions().achieved() == 4);
  CHECK(events[2].result().latency().ttft_p50_s() == Approx(0.004));

  REQUIRE(agent.runner->assignments().size() == 1);
  CHECK(agent.runner->assignments()[0].scenario().scenario_id() == "00-cpu_ram-c4");
  // The service acks each event; the spool empties.
  REQUIRE(WaitFor([&] { return agent.spool->Unacknowledged().empty(); }));
  REQUIRE(WaitFor([&] { return agent.link->acked_seq() == 4; }));
}

TEST_CASE("A second assignment while one runs is refused with a FAILED event", "[link]") {
  TempDir dir;
  FakeClock clock;
  FakeControllerServer server;
  TestAgent agent(dir.File("spool"), server.address(), &clock);
  agent.runner->set_auto_complete(false);
  agent.link->Start();
  REQUIRE(WaitFor([&] { return agent.link->connected(); }));

  const v1::Assignment first = MakeAssignment("00-gpu-c1", 1);
  REQUIRE(server.service().SendAssignment(first));
  REQUIRE(WaitFor([&] { return agent.runner->running_scenario_id() == "00-gpu-c1"; }));
  REQUIRE(server.service().SendAssignment(MakeAssignment("01-gpu-c2", 2)));
  REQUIRE(WaitFor([&] { return server.service().StoredEventsOf("01-gpu-c2").size() == 1; }));
  const v1::Event refused = server.service().StoredEventsOf("01-gpu-c2")[0];
  CHECK(refused.state_change().state() == v1::SCENARIO_STATE_FAILED);
  CHECK(refused.state_change().reason().find("00-gpu-c1") != std::string::npos);
  CHECK(refused.job_id() == "job-1");
  CHECK(refused.attempt() == 1);
  // The attempt already running, assigned again (a resent assignment): nothing changes.
  REQUIRE(server.service().SendAssignment(first));
  // A cancel of another attempt of it is not for this one.
  v1::Assignment other_attempt = first;
  other_attempt.set_attempt(2);
  REQUIRE(server.service().SendCancel(other_attempt));
  REQUIRE(WaitFor([&] { return agent.runner->cancels().size() == 1; }));
  CHECK(agent.runner->running_scenario_id() == "00-gpu-c1");
  CHECK(agent.runner->assignments().size() == 3);
  // Heartbeats name the running scenario; a cancel ends it.
  REQUIRE(WaitFor([&] {
    auto heartbeats = server.service().heartbeats();
    return !heartbeats.empty() && heartbeats.back().running_scenario_id() == "00-gpu-c1";
  }));
  REQUIRE(server.service().SendCancel(first));
  REQUIRE(WaitFor([&] {
    auto events = server.service().StoredEventsOf("00-gpu-c1");
    return !events.empty() && events.back().state_change().state() == v1::SCENARIO_STATE_CANCELLED;
  }));
  CHECK(agent.runner->cancels() == std::vector<std::string>{"00-gpu-c1", "00-gpu-c1"});
  CHECK(server.service().StoredEventsOf("00-gpu-c1").size() == 3);  // RUNNING, progress, CANCELLED
}

// The agent's half of "every event exactly once" across a cut: it resends every event not
// acknowledged, once each, in seq order, and nothing else. The other half, storing a resent event
// only once, is the controller's ("a resent event is acknowledged again and applied once",
// job_manager_test.cc, over the real store). This fake stores once per seq too, so what it stored
// cannot show an event the agent sent twice: what the agent sent is checked as it came.
TEST_CASE("A stream cut mid-scenario reconnects and resends each unacknowledged event once",
          "[link]") {
  TempDir dir;
  FakeClock clock;
  FakeControllerServer server;
  FakeAgentLinkService& service = server.service();
  TestAgent agent(dir.File("spool"), server.address(), &clock);
  agent.runner->Hold();
  agent.link->Start();
  REQUIRE(WaitFor([&] { return agent.link->connected(); }));

  // Events are stored but not acknowledged, and the controller will claim to know none of them:
  // after the cut the agent replays them all and the service sees duplicates.
  service.set_auto_ack(false);
  service.set_registered_acked_seq(0);
  REQUIRE(service.SendAssignment(MakeAssignment("00-nvme-c8", 8)));
  REQUIRE(WaitFor([&] { return service.StoredEventsOf("00-nvme-c8").size() == 2; }));
  REQUIRE(WaitFor([&] { return agent.runner->waiting_on_hold(); }));

  service.CutStream();
  REQUIRE(WaitFor([&] { return agent.link->connects() == 2 && agent.link->connected(); }));
  const std::vector<v1::Register> registrations = service.registrations();
  REQUIRE(registrations.size() == 2);
  REQUIRE(registrations[1].running_size() == 1);
  CHECK(registrations[1].running(0).scenario_id() == "00-nvme-c8");
  CHECK(registrations[1].running(0).attempt() == 1);

  agent.runner->Release();
  REQUIRE(WaitFor([&] { return service.StoredEventsOf("00-nvme-c8").size() == 4; }));
  const std::vector<v1::Event> events = service.StoredEventsOf("00-nvme-c8");
  CHECK(Kinds(events) == kSucceededKinds);
  CHECK(ConsecutiveSeqs(events, 1));

  // Acknowledged, they leave the spool.
  REQUIRE(agent.spool->Unacknowledged().size() == 4);
  REQUIRE(service.SendAck(4));
  REQUIRE(WaitFor([&] { return agent.spool->Unacknowledged().empty(); }));
  // Heartbeats share the stream with events: two more heartbeats, and every event the agent sent
  // has arrived.
  const size_t heartbeats = service.heartbeats().size();
  REQUIRE(WaitFor([&] { return service.heartbeats().size() >= heartbeats + 2; }));
  // As sent: 1 and 2 on the first stream; 1 and 2 again on the second (the controller had
  // acknowledged neither), then 3 and 4; each once per stream.
  std::vector<int64_t> sent;
  for (const v1::Event& event : service.raw_events()) sent.push_back(event.seq());
  CHECK(sent == std::vector<int64_t>{1, 2, 1, 2, 3, 4});
}

TEST_CASE("A restarted agent replays from its spool what the controller lacks", "[link]") {
  TempDir dir;
  FakeClock clock;
  FakeControllerServer server;
  FakeAgentLinkService& service = server.service();
  service.set_auto_ack(false);
  {
    TestAgent agent(dir.File("spool"), server.address(), &clock);
    agent.runner->Hold();
    agent.link->Start();
    REQUIRE(WaitFor([&] { return agent.link->connected(); }));
    REQUIRE(service.SendAssignment(MakeAssignment("02-gpu-c2", 2)));
    REQUIRE(WaitFor([&] { return service.StoredEventsOf("02-gpu-c2").size() == 2; }));
    REQUIRE(WaitFor([&] { return agent.runner->waiting_on_hold(); }));
    // The link goes (the controller is unreachable); the scenario ends meanwhile: its last
    // events are only in the spool when the agent process stops.
    agent.link->Stop();
    agent.runner->Release();
    REQUIRE(WaitFor([&] { return agent.runner->running_scenario_id().empty(); }));
    agent.runner->Shutdown();
    CHECK(agent.spool->Unacknowledged().size() == 4);
  }
  CHECK(service.StoredEventsOf("02-gpu-c2").size() == 2);

  TestAgent restarted(dir.File("spool"), server.address(), &clock);
  CHECK(restarted.spool->last_seq() == 4);
  restarted.link->Start();
  REQUIRE(WaitFor([&] { return service.StoredEventsOf("02-gpu-c2").size() == 4; }));
  const std::vector<v1::Event> events = service.StoredEventsOf("02-gpu-c2");
  CHECK(Kinds(events) == kSucceededKinds);
  CHECK(ConsecutiveSeqs(events, 1));
  // Registered said acked_seq 2 (what it stored): only 3 and 4 were sent again.
  CHECK(service.raw_events().size() == 4);
  const std::vector<v1::Register> registrations = service.registrations();
  REQUIRE(registrations.size() == 2);
  REQUIRE(registrations[1].running_size() == 1);
  CHECK(registrations[1].running(0).scenario_id() == "02-gpu-c2");
  CHECK(registrations[1].running(0).attempt() == 1);
  REQUIRE(WaitFor([&] { return restarted.link->acked_seq() == 2; }));
  CHECK(restarted.spool->Unacknowledged().size() == 2);

  // New events continue the numbering.
  service.set_auto_ack(true);
  REQUIRE(service.SendAssignment(MakeAssignment("03-gpu-c4", 4)));
  REQUIRE(WaitFor([&] { return service.StoredEventsOf("03-gpu-c4").size() == 4; }));
  CHECK(ConsecutiveSeqs(service.StoredEventsOf("03-gpu-c4"), 5));
  REQUIRE(WaitFor([&] { return restarted.spool->Unacknowledged().empty(); }));
}

// Counts ERROR lines.
class CountingSink : public LogSink {
 public:
  void Write(LogLevel level, absl::string_view line) override {
    if (level != LogLevel::kError) return;
    std::lock_guard<std::mutex> lock(mu_);
    ++errors_;
    last_ = std::string(line);
  }
  int errors() const {
    std::lock_guard<std::mutex> lock(mu_);
    return errors_;
  }

 private:
  mutable std::mutex mu_;
  int errors_ = 0;
  std::string last_;
};

TEST_CASE("A controller that refuses the agent is retried, logged once", "[link]") {
  TempDir dir;
  FakeClock clock;
  FakeControllerServer server;
  server.service().set_refuse(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "no certificate"));
  auto sink = std::make_shared<CountingSink>();
  std::shared_ptr<LogSink> previous = SetLogSink(sink);
  {
    TestAgent agent(dir.File("spool"), server.address(), &clock);
    agent.link->Start();
    REQUIRE(WaitFor([&] { return server.service().attaches() >= 4; }));
    CHECK_FALSE(agent.link->connected());
    CHECK(sink->errors() == 1);
    // Once let in, it registers.
    server.service().set_refuse(grpc::Status::OK);
    REQUIRE(WaitFor([&] { return agent.link->connected(); }));
  }
  SetLogSink(previous);
}

TEST_CASE("ControllerLink reaches a controller that starts after it", "[link]") {
  TempDir dir;
  FakeClock clock;
  const int port = UnusedLoopbackPort();
  REQUIRE(port > 0);
  std::unique_ptr<FakeControllerServer> server;  // outlives the agent
  TestAgent agent(dir.File("spool"), absl::StrCat("127.0.0.1:", port), &clock);
  agent.link->Start();
  CHECK_FALSE(agent.link->connected());
  server = std::make_unique<FakeControllerServer>(port);
  REQUIRE(WaitFor([&] { return agent.link->connected(); }));
  CHECK(server->service().registrations().size() == 1);
}

}  // namespace
}  // namespace kvbench::testing
