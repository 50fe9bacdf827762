// ControllerLink on fake time: a FakeExecutor stepped by a FakeClock and a FakeLinkTransport,
// no network, no threads, no sleeps. What it checks is what an operator relies on: how soon a
// cut-off agent comes back, how often it beats, that a silent controller does not hang it, and
// that no event is lost or sent twice across a reconnect.
#include "agent/link/controller_link.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "agent/link/event_spool.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_executor.h"
#include "tests/fakes/fake_link_transport.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {
namespace {

using agent::ControllerLink;
using agent::ControllerLinkOptions;

constexpr absl::Duration kInitial = absl::Milliseconds(100);
constexpr absl::Duration kMax = absl::Milliseconds(800);

// Hands the link's sink to the test, which emits events through it as a scenario would.
class SinkRunner : public agent::ScenarioWorker {
 public:
  absl::Status Start(const v1::Assignment& assignment, EventSink sink) override {
    running_ = agent::AttemptOf(assignment);
    sink_ = std::move(sink);
    return absl::OkStatus();
  }
  void Cancel(const v1::ScenarioAttempt& /*target*/) override {}
  v1::ScenarioAttempt running() const override { return running_; }

  void Emit() {
    v1::Event event;
    event.set_job_id(running_.job_id());
    event.set_scenario_id(running_.scenario_id());
    event.set_attempt(running_.attempt());
    event.mutable_progress()->set_sessions_done(++emitted_);
    sink_(std::move(event));
  }

 private:
  v1::ScenarioAttempt running_;
  EventSink sink_;
  int emitted_ = 0;
};

v1::ControllerMessage Registered(int64_t acked_seq, double heartbeat_interval_s = 0) {
  v1::ControllerMessage message;
  message.mutable_registered()->set_acked_seq(acked_seq);
  message.mutable_registered()->set_heartbeat_interval_s(heartbeat_interval_s);
  return message;
}

struct LinkWorld {
  LinkWorld() : executor(&clock) {
    auto opened = agent::EventSpool::Open(dir.File("spool"));
    REQUIRE(opened.ok());
    spool = *std::move(opened);
    auto owned = std::make_unique<FakeLinkTransport>(&clock);
    transport = owned.get();
    ControllerLinkOptions options;
    options.agent_id = "agent-1";
    options.controller_address = "controller:7070";
    options.backoff_initial = kInitial;
    options.backoff_max = kMax;
    link = ControllerLink::CreateWithTransport(options, v1::AgentCapabilities(), spool.get(),
                                               &runner, &clock, &executor, std::move(owned));
  }

  // The current stream fails; returns how long the link waited before the next Open.
  absl::Duration FailAndTimeReconnect(absl::Status status = absl::UnavailableError("cut")) {
    const int opens = transport->opens();
    transport->Finish(std::move(status));
    const absl::Duration failed_at = clock.Monotonic();
    executor.RunUntilIdle();
    executor.AdvanceTime(kMax);  // the longest any delay may be
    REQUIRE(transport->opens() == opens + 1);
    return transport->open_times().back() - failed_at;
  }

  // The events written on stream `index`, by seq.
  std::vector<int64_t> SentSeqs(int index = -1) const {
    std::vector<int64_t> seqs;
    for (const v1::AgentMessage& message : transport->writes(index)) {
      if (message.has_event()) seqs.push_back(message.event().seq());
    }
    return seqs;
  }

  int Heartbeats() const {
    int count = 0;
    for (const v1::AgentMessage& message : transport->writes()) count += message.has_heartbeat();
    return count;
  }

  TempDir dir;
  FakeClock clock;
  FakeExecutor executor;
  std::unique_ptr<agent::EventSpool> spool;
  SinkRunner runner;
  FakeLinkTransport* transport = nullptr;
  std::unique_ptr<ControllerLink> link;
};

TEST_CASE("The link dials on its executor and registers first", "[link]") {
  LinkWorld world;
  world.link->Start();
  CHECK(world.transport->opens() == 0);  // nothing happens off the executor
  world.executor.RunUntilIdle();
  REQUIRE(world.transport->opens() == 1);
  REQUIRE(world.transport->writes().size() == 1);
  CHECK(world.transport->writes()[0].has_register_());
  world.transport->Deliver(Registered(0));
  CHECK_FALSE(world.link->connected());
  world.executor.RunUntilIdle();
  CHECK(world.link->connected());
  CHECK(world.link->connects() == 1);
  world.link->Stop();
  CHECK(world.transport->cancelled());
  CHECK_FALSE(world.link->connected());
  world.link->Stop();  // idempotent
}

TEST_CASE("Reconnect delays grow from the initial delay to the max with full jitter", "[link]") {
  LinkWorld world;
  world.link->Start();
  world.executor.RunUntilIdle();
  // Failures 1..4 have caps 100, 200, 400, 800 ms; from there on the max.
  const absl::Duration caps[] = {kInitial, 2 * kInitial, 4 * kInitial, kMax};
  for (absl::Duration cap : caps) {
    const absl::Duration delay = world.FailAndTimeReconnect();
    INFO("cap=" << cap << " delay=" << delay);
    CHECK(delay >= absl::ZeroDuration());
    CHECK(delay <= cap);
  }
  // At the cap the delay is spread over [0, max] (full jitter), not pinned to either end and
  // not stuck at the initial delay. 100 uniform draws miss either quarter with p < 1e-12.
  absl::Duration shortest = kMax;
  absl::Duration longest = absl::ZeroDuration();
  for (int i = 0; i < 100; ++i) {
    const absl::Duration delay = world.FailAndTimeReconnect();
    REQUIRE(delay <= kMax);
    shortest = std::min(shortest, delay);
    longest = std::max(longest, delay);
  }
  CHECK(shortest < kMax / 4);
  CHECK(longest > kMax * 3 / 4);
}

TEST_CASE("A registration that holds for the max delay resets the backoff", "[link]") {
  LinkWorld world;
  world.link->Start();
  world.executor.RunUntilIdle();
  for (int i = 0; i < 6; ++i) world.FailAndTimeReconnect();  // at the max now
  // Ten times: registered, up for the max delay, cut, back within the initial delay (a missing
  // reset is caught with p = 1 - (1/8)^10).
  for (int i = 0; i < 10; ++i) {
    world.transport->Deliver(Registered(0));
    world.executor.RunUntilIdle();
    REQUIRE(world.link->connected());
    world.executor.AdvanceTime(kMax);
    const absl::Duration delay = world.FailAndTimeReconnect();
    INFO("delay=" << delay);
    CHECK(delay <= kInitial);
  }
  CHECK(world.link->connects() == 10);
}

TEST_CASE("A stream cut right after each registration keeps backing off", "[link]") {
  LinkWorld world;
  world.link->Start();
  world.executor.RunUntilIdle();
  // Registered, then cut at once, ten times: the caps still grow to the max (before, each
  // registration reset them and the agent redialled every 100 ms). From the fifth on the cap is the
  // max: six full-jitter delays all within the initial delay has p = (1/8)^6.
  absl::Duration longest = absl::ZeroDuration();
  for (int i = 0; i < 10; ++i) {
    world.transport->Deliver(Registered(0));
    world.executor.RunUntilIdle();
    REQUIRE(world.link->connected());
    const absl::Duration delay = world.FailAndTimeReconnect();
    CHECK(delay <= kMax);
    if (i >= 4) longest = std::max(longest, delay);
  }
  CHECK(longest > kInitial);
  CHECK(world.link->connects() == 10);
}

TEST_CASE("A refused agent retries at the max delay", "[link]") {
  LinkWorld world;
  world.link->Start();
  world.executor.RunUntilIdle();
  CHECK(world.FailAndTimeReconnect(absl::UnauthenticatedError("bad cert")) == kMax);
  CHECK(world.FailAndTimeReconnect(absl::PermissionDeniedError("not allowed")) == kMax);
}

TEST_CASE("Heartbeats come every default interval until Registered sets one", "[link]") {
  LinkWorld world;
  world.link->Start();
  world.executor.RunUntilIdle();
  SECTION("the default, 5 s") {
    world.transport->Deliver(Registered(0));
    world.executor.RunUntilIdle();
    world.executor.AdvanceTime(agent::kDefaultHeartbeatInterval - absl::Milliseconds(1));
    CHECK(world.Heartbeats() == 0);
    world.executor.AdvanceTime(absl::Milliseconds(1));
    CHECK(world.Heartbeats() == 1);
    world.executor.AdvanceTime(agent::kDefaultHeartbeatInterval * 2);
    CHECK(world.Heartbeats() == 3);
    const v1::AgentMessage last = world.transport->writes().back();
    REQUIRE(last.has_heartbeat());
    CHECK(last.heartbeat().unix_ms() == absl::ToUnixMillis(world.clock.Now()));
  }
  SECTION("the controller's, 2 s") {
    world.transport->Deliver(Registered(0, 2));
    world.executor.RunUntilIdle();
    world.executor.AdvanceTime(absl::Milliseconds(1999));
    CHECK(world.Heartbeats() == 0);
    world.executor.AdvanceTime(absl::Milliseconds(1));
    CHECK(world.Heartbeats() == 1);
    world.executor.AdvanceTime(absl::Seconds(6));
    CHECK(world.Heartbeats() == 4);
  }
  SECTION("none before registration, none after the stream ends") {
    world.executor.AdvanceTime(agent::kRegisterTimeout - absl::Milliseconds(1));
    CHECK(world.Heartbeats() == 0);
    world.transport->Deliver(Registered(0, 1));
    world.executor.AdvanceTime(absl::Seconds(1));
    REQUIRE(world.Heartbeats() == 1);
    world.transport->Finish(absl::UnavailableError("cut"));
    world.executor.AdvanceTime(absl::Seconds(5));
    CHECK(world.Heartbeats(/*last stream*/) == 0);
  }
}

TEST_CASE("A stream the controller leaves silent is cancelled at the register timeout", "[link]") {
  LinkWorld world;
  world.link->Start();
  world.executor.RunUntilIdle();
  world.executor.AdvanceTime(agent::kRegisterTimeout - absl::Milliseconds(1));
  CHECK_FALSE(world.transport->cancelled(0));
  world.executor.AdvanceTime(absl::Milliseconds(1));
  CHECK(world.transport->cancelled(0));
  // Then it dials again, within the first backoff.
  world.executor.AdvanceTime(kInitial);
  CHECK(world.transport->opens() == 2);
  // A registered stream is never cancelled by it.
  world.transport->Deliver(Registered(0));
  world.executor.AdvanceTime(agent::kRegisterTimeout * 3);
  CHECK_FALSE(world.transport->cancelled(1));
  CHECK(world.link->connected());
}

TEST_CASE("Events spooled while disconnected are replayed after acked_seq, each once", "[link]") {
  LinkWorld world;
  world.link->Start();
  world.executor.RunUntilIdle();
  world.transport->Deliver(Registered(0));
  v1::ControllerMessage assignment;
  assignment.mutable_assignment()->mutable_scenario()->set_scenario_id("s-1");
  world.transport->Deliver(assignment);
  world.executor.RunUntilIdle();
  world.runner.Emit();  // seq 1, sent live
  world.executor.RunUntilIdle();
  CHECK(world.SentSeqs(0) == std::vector<int64_t>{1});

  world.transport->Finish(absl::UnavailableError("cut"));
  world.executor.RunUntilIdle();
  REQUIRE_FALSE(world.link->connected());
  world.runner.Emit();  // seq 2
  world.runner.Emit();  // seq 3
  world.executor.RunUntilIdle();
  CHECK(world.spool->last_seq() == 3);

  world.executor.AdvanceTime(kInitial);
  REQUIRE(world.transport->opens() == 2);
  // The controller stored seq 1. An event emitted while Registered is on its way (its send is
  // queued behind it) is replayed with the others, not sent a second time.
  world.transport->Deliver(Registered(1));
  world.runner.Emit();  // seq 4
  world.executor.RunUntilIdle();
  world.runner.Emit();  // seq 5, live
  world.executor.RunUntilIdle();
  CHECK(world.SentSeqs(1) == std::vector<int64_t>{2, 3, 4, 5});
  CHECK(world.link->acked_seq() == 1);
  CHECK(world.spool->acked_seq() == 1);

  v1::ControllerMessage ack;
  ack.mutable_ack()->set_acked_seq(5);
  world.transport->Deliver(ack);
  world.executor.RunUntilIdle();
  CHECK(world.link->acked_seq() == 5);
  CHECK(world.spool->Unacknowledged().empty());
}

TEST_CASE("Nothing the link scheduled runs after Stop", "[link]") {
  LinkWorld world;
  world.link->Start();
  world.executor.RunUntilIdle();
  world.transport->Deliver(Registered(0, 1));
  world.link->Stop();
  world.executor.AdvanceTime(absl::Minutes(1));
  CHECK(world.link->connects() == 0);
  CHECK(world.transport->opens() == 1);
  CHECK(world.Heartbeats() == 0);
}

}  // namespace
}  // namespace kvbench::testing
