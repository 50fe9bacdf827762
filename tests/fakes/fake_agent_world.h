#pragma once

#include <prometheus/registry.h>

#include "agent/agent_seams.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_executor.h"
#include "tests/fakes/fake_preflight_probes.h"
#include "tests/fakes/fake_sleeper.h"

namespace kvbench::testing {

// The world an Agent is created in (agent/agent_seams.h), all fake: a clock, a sleeper and a
// stepped executor on it, a registry and preflight probes. Seams() lends them to Agent::Create.
struct FakeAgentWorld {
  FakeClock clock;
  FakeSleeper sleeper{&clock};
  FakeExecutor executor{&clock};
  prometheus::Registry registry;
  FakePreflightProbes probes;

  agent::AgentSeams Seams() {
    agent::AgentSeams seams;
    seams.clock = &clock;
    seams.sleeper = &sleeper;
    seams.executor = &executor;
    seams.registry = &registry;
    seams.probes = &probes;
    return seams;
  }
};

}  // namespace kvbench::testing
