#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/process/process_launcher.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {

// How long Start() and Restart() wait for the server to accept connections (a restart after
// Kill() includes crash recovery).
inline constexpr absl::Duration kPostgresReadyTimeout = absl::Seconds(30);
// How long initdb may take.
inline constexpr absl::Duration kPostgresInitdbTimeout = absl::Seconds(60);
// How long Stop() waits for a fast shutdown before killing the server.
inline constexpr absl::Duration kPostgresStopTimeout = absl::Seconds(30);
// Where Debian's postgresql-NN packages put their server binaries: <root>/<version>/bin.
inline constexpr char kPostgresInstallRoot[] = "/usr/lib/postgresql";
// The superuser initdb creates; every DSN connects as it, with trust authentication.
inline constexpr char kPostgresUser[] = "kvbench";

struct PostgresServerOptions {
  // fsync, synchronous_commit and full_page_writes, all three. Off (the default) is fast and keeps
  // committed data across Stop() and Restart(), but not across Kill(): with synchronous_commit
  // off a commit is acknowledged before its WAL leaves the server's memory. Crash tests turn it
  // on. initdb never syncs: Kill() crashes processes, and the kernel's page cache outlives them.
  bool fsync = false;
  // The folder holding initdb and postgres; empty: the newest kPostgresInstallRoot/*/bin.
  std::string bin_dir;
  absl::Duration ready_timeout = kPostgresReadyTimeout;
};

// A real PostgreSQL server for a test: initdb in a fresh TempDir, then postgres listening only on
// a Unix socket in that folder (no TCP), as user kPostgresUser with trust authentication.
//
// postgres refuses to run as root, so under root initdb and postgres run as the `postgres` system
// user (else `nobody`) through `setpriv --reuid --regid --init-groups`, and the data and socket
// folders are that user's. Either way the server gets SIGQUIT (immediate shutdown) when the
// process that started it dies, even by SIGKILL (setpriv --pdeathsig): no server outlives its
// test. Children are launched from a thread the server owns, as the parent-death signal follows
// the thread that forked, so Restart() may be called from any thread, even a short-lived one.
//
// One server is shared by a test binary (SharedPostgresServer()); each test takes its own
// database with CreateDatabase(). Tests that stop, restart or kill a server start their own.
// Thread-safe: Dsn() and CreateDatabase() from any thread; Stop(), Restart() and Kill() from one
// thread at a time.
class PostgresServer {
 public:
  // initdb, then postgres, then waits until it accepts connections. NOT_FOUND (naming
  // deploy/setup.sh) without a PostgreSQL server installed; otherwise the failing step with its
  // output (initdb's, or the tail of the server's log).
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Start(PostgresServerOptions options = {});
  // Stops the server (Stop()); the TempDir removes its files.
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // "host=<socket dir> port=<port> user=kvbench dbname=<dbname>", for PQconnectdb.
  std::string Dsn(const std::string& dbname = "postgres") const;
  // Creates a database no one has used (kvbench_test_<n>) and returns its DSN. UNAVAILABLE when
  // the server cannot be reached, INTERNAL when CREATE DATABASE fails.
  absl::StatusOr<std::string> CreateDatabase();

  // Fast shutdown: SIGINT to the postmaster (open sessions end, their transactions roll back,
  // committed data is checkpointed), then up to kPostgresStopTimeout for it to exit, else Kill()
  // and DEADLINE_EXCEEDED. OK if it is not running.
  absl::Status Stop();
  // Stop(), then postgres again on the same data folder, socket and port; waits for readiness as
  // Start() does. Open connections see the restart as a broken connection (PQreset recovers).
  absl::Status Restart();
  // SIGKILL to the postmaster and each of its children (backends and auxiliary processes) at
  // once, as when its host loses power but with the kernel's page cache kept; returns once all
  // of them are gone. Restart() then runs crash recovery. Aborts if they cannot be killed.
  void Kill();

  // The postmaster's pid; 0 when not running (after Stop() or Kill()).
  int pid() const;
  int port() const { return port_; }
  std::string socket_dir() const;
  std::string data_dir() const;
  // All the server's log (its stdout and stderr) since Start().
  std::string log() const;

 private:
  PostgresServer(PostgresServerOptions options, std::string bin_dir,
                 std::vector<std::string> run_as);
  absl::Status InitDataDir();
  // Launches postgres and waits until PQping says it accepts connections.
  absl::Status Launch();
  absl::Status AwaitReady();
  // The last lines of the server's log, for errors.
  std::string LogTail() const;

  // Members in dependency order; shutdown (the destructor) is the reverse.
  const PostgresServerOptions options_;
  const std::string bin_dir_;
  // The command prefix every child runs under: setpriv with the server user and the death signal.
  const std::vector<std::string> run_as_;
  TempDir dir_;
  // Launches from its own thread, which lives as long as the server.
  std::unique_ptr<ProcessLauncher> launcher_;
  int port_ = 0;
  std::unique_ptr<Process> postmaster_;
  std::atomic<int> databases_created_{0};
};

// The test binary's one server, started on first use (from any thread) and stopped at exit.
// Aborts naming what failed when it cannot start (without PostgreSQL: "install postgresql
// (deploy/setup.sh)").
PostgresServer& SharedPostgresServer();

}  // namespace kvbench::testing
