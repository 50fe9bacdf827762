#include "tests/support/postgres_server.h"

#include <libpq-fe.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

using Connection = std::unique_ptr<PGconn, decltype(&PQfinish)>;

Connection Connect(const std::string& dsn) {
  Connection connection(PQconnectdb(dsn.c_str()), &PQfinish);
  INFO(PQerrorMessage(connection.get()));
  REQUIRE(PQstatus(connection.get()) == CONNECTION_OK);
  return connection;
}

// Runs a statement that returns no rows; "" on success, else the server's error.
std::string Execute(PGconn* connection, const std::string& sql) {
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(connection, sql.c_str()), &PQclear);
  if (PQresultStatus(result.get()) == PGRES_COMMAND_OK) return "";
  return PQerrorMessage(connection);
}

// The first column of the first row of `sql`, or "error: <message>".
std::string QueryValue(PGconn* connection, const std::string& sql) {
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(connection, sql.c_str()), &PQclear);
  if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) {
    return std::string("error: ") + PQerrorMessage(connection);
  }
  if (PQntuples(result.get()) == 0) return "error: no rows";
  return PQgetvalue(result.get(), 0, 0);
}

// A server of the test's own, for tests that stop or kill it.
std::unique_ptr<PostgresServer> StartServer(PostgresServerOptions options = {}) {
  absl::StatusOr<std::unique_ptr<PostgresServer>> server = PostgresServer::Start(options);
  INFO(server.status().ToString());
  REQUIRE(server.ok());
  return *std::move(server);
}

std::string CreateDatabase(PostgresServer& server) {
  absl::StatusOr<std::string> dsn = server.CreateDatabase();
  INFO(dsn.status().ToString());
  REQUIRE(dsn.ok());
  return *dsn;
}

TEST_CASE("postgres_server: starts on a Unix socket only, with fsync off by default",
          "[postgres]") {
  PostgresServer& server = SharedPostgresServer();
  CHECK(server.pid() > 0);
  CHECK(std::filesystem::exists(server.data_dir() + "/PG_VERSION"));
  CHECK(server.Dsn() == "host=" + server.socket_dir() + " port=" + std::to_string(server.port()) +
                            " user=kvbench dbname=postgres");
  REQUIRE(PQping(server.Dsn().c_str()) == PQPING_OK);
  Connection connection = Connect(server.Dsn());
  CHECK(QueryValue(connection.get(), "SHOW listen_addresses") == "");
  CHECK(QueryValue(connection.get(), "SHOW fsync") == "off");
  CHECK(QueryValue(connection.get(), "SHOW synchronous_commit") == "off");
  CHECK(QueryValue(connection.get(), "SELECT current_user") == "kvbench");
  CHECK(server.log().find("database system is ready to accept connections") != std::string::npos);
}

TEST_CASE("postgres_server: each CreateDatabase gives a database of its own", "[postgres]") {
  PostgresServer& server = SharedPostgresServer();
  const std::string first_dsn = CreateDatabase(server);
  const std::string second_dsn = CreateDatabase(server);
  REQUIRE(first_dsn != second_dsn);
  Connection first = Connect(first_dsn);
  Connection second = Connect(second_dsn);
  REQUIRE(Execute(first.get(), "CREATE TABLE only_in_first (v integer)") == "");
  const std::string table_exists = "SELECT to_regclass('only_in_first') IS NOT NULL";
  CHECK(QueryValue(first.get(), table_exists) == "t");
  CHECK(QueryValue(second.get(), table_exists) == "f");
  CHECK(QueryValue(first.get(), "SELECT current_database()") !=
        QueryValue(second.get(), "SELECT current_database()"));
}

TEST_CASE(
    "postgres_server: Restart keeps committed data, an open connection breaks and PQreset "
    "recovers it",
    "[postgres]") {
  std::unique_ptr<PostgresServer> server = StartServer();
  Connection connection = Connect(CreateDatabase(*server));
  REQUIRE(Execute(connection.get(), "CREATE TABLE kept (v integer)") == "");
  REQUIRE(Execute(connection.get(), "INSERT INTO kept VALUES (42)") == "");

  // From a thread that ends before the server is used again: the server must outlive it.
  absl::Status restarted;
  std::thread([&] { restarted = server->Restart(); }).join();
  INFO(restarted.ToString());
  REQUIRE(restarted.ok());

  CHECK(QueryValue(connection.get(), "SELECT v FROM kept").rfind("error: ", 0) == 0);
  CHECK(PQstatus(connection.get()) == CONNECTION_BAD);
  PQreset(connection.get());
  INFO(PQerrorMessage(connection.get()));
  REQUIRE(PQstatus(connection.get()) == CONNECTION_OK);
  CHECK(QueryValue(connection.get(), "SELECT v FROM kept") == "42");

  // The restarting thread's end did not shut the server down (no parent-death signal).
  connection.reset();
  REQUIRE(server->Stop().ok());
  CHECK(server->pid() == 0);
  CHECK(server->log().find("immediate shutdown") == std::string::npos);
}

TEST_CASE("postgres_server: Kill then Restart keeps committed data with fsync on", "[postgres]") {
  PostgresServerOptions options;
  options.fsync = true;
  std::unique_ptr<PostgresServer> server = StartServer(options);
  const std::string dsn = CreateDatabase(*server);
  {
    Connection connection = Connect(dsn);
    CHECK(QueryValue(connection.get(), "SHOW fsync") == "on");
    CHECK(QueryValue(connection.get(), "SHOW synchronous_commit") == "on");
    REQUIRE(Execute(connection.get(), "CREATE TABLE kept (v integer)") == "");
    REQUIRE(Execute(connection.get(), "INSERT INTO kept VALUES (7)") == "");
    // A backend busy in a loop never looks for its postmaster: unless killed too, it would keep
    // the shared memory attached and the restart would refuse to start.
    Connection busy = Connect(dsn);
    REQUIRE(PQsendQuery(busy.get(), "DO $$BEGIN LOOP END LOOP; END$$") == 1);
    REQUIRE(WaitFor([&] {
      return QueryValue(connection.get(),
                        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND "
                        "query LIKE 'DO %'") == "1";
    }));
    server->Kill();
    CHECK(server->pid() == 0);
    CHECK(PQping(dsn.c_str()) == PQPING_NO_RESPONSE);
    CHECK(QueryValue(connection.get(), "SELECT v FROM kept").rfind("error: ", 0) == 0);
  }
  absl::Status restarted = server->Restart();
  INFO(restarted.ToString());
  REQUIRE(restarted.ok());
  CHECK(server->log().find("automatic recovery in progress") != std::string::npos);
  Connection connection = Connect(dsn);
  CHECK(QueryValue(connection.get(), "SELECT v FROM kept") == "7");
}

TEST_CASE("postgres_server: Start without a PostgreSQL server is NOT_FOUND naming setup.sh",
          "[postgres]") {
  TempDir empty;
  PostgresServerOptions options;
  options.bin_dir = empty.path();
  absl::StatusOr<std::unique_ptr<PostgresServer>> server = PostgresServer::Start(options);
  REQUIRE(server.status().code() == absl::StatusCode::kNotFound);
  CHECK(server.status().message().find("install postgresql (deploy/setup.sh)") !=
        absl::string_view::npos);
}

}  // namespace
}  // namespace kvbench::testing
