// What only the PostgreSQL store has to get right: a server that restarts under it, the leader
// lease of controllers sharing it and the fencing of a leader that lost it, and errors that name
// the server without its password.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "controller/store/postgres_database.h"
#include "controller/store/sql_store.h"
#include "tests/component/controller/store/open_store.h"
#include "tests/support/postgres_server.h"
#include "tests/support/wait_for.h"

namespace kvbench::controller {
namespace {

v1::Event Progress(int64_t seq) {
  v1::Event event;
  event.set_seq(seq);
  event.set_agent_id("agent-a");
  event.set_job_id("job-1");
  event.set_scenario_id("job-1-s0");
  event.mutable_progress()->set_requests_done(seq);
  return event;
}

TEST_CASE("A PostgreSQL restart fails the call in flight, and the next call carries on",
          "[store][postgresql]") {
  absl::StatusOr<std::unique_ptr<testing::PostgresServer>> server =
      testing::PostgresServer::Start();
  INFO(server.status().ToString());
  REQUIRE(server.ok());
  auto store = testing::RequireOpened(SqlStore::OpenPostgres((*server)->Dsn()));
  REQUIRE(*store->Events().AppendEvent(Progress(1)));

  REQUIRE((*server)->Restart().ok());
  // The old session is gone: the first call says so, naming the server, and nothing is written.
  absl::StatusOr<bool> cut = store->Events().AppendEvent(Progress(2));
  if (!cut.ok()) {
    CHECK(absl::IsUnavailable(cut.status()));
    CHECK_THAT(std::string(cut.status().message()), Catch::Contains("postgresql://"));
  }
  // The next call reconnects (statements prepared again, the writer lock taken again).
  absl::StatusOr<bool> resent = store->Events().AppendEvent(Progress(2));
  INFO(resent.status().ToString());
  REQUIRE(resent.ok());
  CHECK(*resent == !cut.ok());  // stored now, or already stored by the call that got through
  CHECK_FALSE(*store->Events().AppendEvent(Progress(1)));  // stored before the restart, once
  CHECK(*store->Events().MaxEventSeq("agent-a") == 2);
  absl::StatusOr<std::vector<StoredEvent>> events = store->Events().EventsForJob("job-1", 0, 10);
  REQUIRE(events.ok());
  CHECK(events->size() == 2);
}

v1::AgentCapabilities Agent(const std::string& id) {
  v1::AgentCapabilities agent;
  agent.set_agent_id(id);
  return agent;
}

std::vector<std::string> AgentIds(SqlStore& store) {
  absl::StatusOr<std::vector<AgentRecord>> agents = store.Agents().ListAgents();
  INFO(agents.status().ToString());
  REQUIRE(agents.ok());
  std::vector<std::string> ids;
  for (const AgentRecord& agent : *agents) ids.push_back(agent.capabilities.agent_id());
  return ids;
}

TEST_CASE("One controller leads at a time, and a takeover fences the old leader's writes",
          "[store][postgresql]") {
  testing::TestStoreLocation at(testing::StoreEngine::kPostgres);
  auto a = at.Open();
  auto b = at.Open();
  Leadership& lead_a = *a->leadership();
  Leadership& lead_b = *b->leadership();
  LeaderRecord seen;
  REQUIRE(*lead_a.TryLead("controller a", "10.0.0.1:7070", absl::Seconds(60), &seen));
  CHECK(seen.term == 1);
  CHECK(lead_a.term() == 1);
  REQUIRE_FALSE(*lead_b.TryLead("controller b", "10.0.0.2:7070", absl::Seconds(60), &seen));
  CHECK(seen.holder == "controller a");
  CHECK(seen.address == "10.0.0.1:7070");
  CHECK_FALSE(seen.expired);
  CHECK(lead_b.term() == 0);
  REQUIRE(a->Agents().UpsertAgent(Agent("before"), absl::Now()).ok());
  REQUIRE(lead_a.Renew(absl::Seconds(60)).ok());

  // a's lease runs out (as when it is paused past it): b takes over with the next term.
  REQUIRE(lead_a.Renew(absl::Milliseconds(1)).ok());
  REQUIRE(testing::WaitFor([&] {
    return lead_b.TryLead("controller b", "10.0.0.2:7070", absl::Seconds(60), &seen)
        .value_or(false);
  }));
  CHECK(seen.term == 2);
  CHECK(lead_b.term() == 2);

  // a wakes: every write it tries is refused, naming the new leader, and nothing lands.
  absl::Status upsert = a->Agents().UpsertAgent(Agent("after"), absl::Now());
  CHECK(absl::IsFailedPrecondition(upsert));
  CHECK_THAT(std::string(upsert.message()),
             Catch::Contains("controller b at 10.0.0.2:7070 (term 2)"));
  CHECK(absl::IsFailedPrecondition(a->Events().AppendEvent(Progress(1)).status()));
  CHECK(absl::IsFailedPrecondition(lead_a.Renew(absl::Seconds(60))));
  CHECK(AgentIds(*b) == std::vector<std::string>{"before"});
  // The new leader writes.
  REQUIRE(b->Agents().UpsertAgent(Agent("by b"), absl::Now()).ok());
  REQUIRE(*b->Events().AppendEvent(Progress(1)));
  CHECK(AgentIds(*b) == std::vector<std::string>{"before", "by b"});
}

TEST_CASE("A leader that steps down hands over at once", "[store][postgresql]") {
  testing::TestStoreLocation at(testing::StoreEngine::kPostgres);
  auto a = at.Open();
  auto b = at.Open();
  REQUIRE(*a->leadership()->TryLead("a", "a:1", absl::Seconds(60), nullptr));
  REQUIRE(a->leadership()->StepDown().ok());
  CHECK(a->leadership()->term() == 0);
  LeaderRecord seen;
  REQUIRE(*b->leadership()->TryLead("b", "b:1", absl::Seconds(60), &seen));
  CHECK(seen.term == 2);
  // The SQLite store has no lease: its file is one controller's alone (data_dir/.lock).
  testing::TestStoreLocation file(testing::StoreEngine::kSqlite);
  CHECK(file.Open()->leadership() == nullptr);
}

TEST_CASE("An unreachable PostgreSQL is UNAVAILABLE and named without its password",
          "[store][postgresql]") {
  const std::string dsn =
      "host=/nonexistent-socket-dir port=5999 user=kvbench password=hunter2 dbname=jobs "
      "connect_timeout=2";
  absl::StatusOr<std::unique_ptr<SqlStore>> store = SqlStore::OpenPostgres(dsn);
  REQUIRE_FALSE(store.ok());
  CHECK(absl::IsUnavailable(store.status()));
  const std::string message(store.status().message());
  CHECK_THAT(message, Catch::Contains("postgresql://kvbench@/nonexistent-socket-dir:5999/jobs"));
  CHECK_THAT(message, !Catch::Contains("hunter2"));
}

TEST_CASE("A database with a newer schema is refused", "[store][postgresql]") {
  testing::TestStoreLocation at(testing::StoreEngine::kPostgres);
  { at.Open(); }
  {
    std::unique_ptr<PostgresDatabase> db = *PostgresDatabase::Open(at.dsn());
    absl::MutexLock lock(&db->mu());
    std::unique_ptr<SqlStatement> bump = *db->PrepareOnce("UPDATE kvbench_schema SET version = 4");
    REQUIRE(bump->Run().ok());
  }
  absl::StatusOr<std::unique_ptr<SqlStore>> store = at.TryOpen();
  REQUIRE_FALSE(store.ok());
  CHECK(absl::IsFailedPrecondition(store.status()));
  CHECK_THAT(std::string(store.status().message()), Catch::Contains("schema version 4"));
}

}  // namespace
}  // namespace kvbench::controller
