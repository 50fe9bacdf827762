// What only the PostgreSQL store has to get right: a server that restarts under it, one writer
// per database, and errors that name the server without its password.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "controller/store/postgres_database.h"
#include "controller/store/sql_store.h"
#include "tests/component/controller/store/open_store.h"
#include "tests/support/postgres_server.h"

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

TEST_CASE("A second store on one PostgreSQL database is refused, naming the first",
          "[store][postgresql]") {
  testing::TestStoreLocation at(testing::StoreEngine::kPostgres);
  auto first = at.Open();
  absl::StatusOr<std::unique_ptr<SqlStore>> second = at.TryOpen();
  REQUIRE_FALSE(second.ok());
  CHECK(absl::IsFailedPrecondition(second.status()));
  const std::string message(second.status().message());
  CHECK_THAT(message, Catch::Contains("another controller writes to this database"));
  CHECK_THAT(message, Catch::Contains(absl::StrCat("kvbench pid ", getpid())));
  // Once the first closes, the database is free.
  first.reset();
  at.Open();
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
