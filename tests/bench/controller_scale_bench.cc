// Controller scale: a fresh kv-controller child per store and fleet size N, driven by N simulated
// agents in this process (ScaleFleet: N AgentLink.Attach streams over ~N/100 TCP connections).
// On PostgreSQL (a real server, fsync on) a second kv-controller on the same database waits as
// the leader's standby. Prints, per store and N, the controller's memory idle and with N
// attached, the time to register N agents, the heartbeat processing rate, the scheduling latency
// of one SIM job, the durable event ingest rate, the request-row ingest rate (each agent's rows
// as RequestRecords events, as an agent sends a scenario's requests.jsonl), the standby's memory
// and the SIGTERM-to-exit time; then the headline figures side by side. Request rows: 2,000 an
// agent by default, fewer at large N (at most 2,000,000 a level) unless --request-rows-per-agent
// is given. Prints figures only (STYLE.md rule 20).
//
//   build/bin/kv_bench_controller_scale [--agents 100,1000,10000] [--store sqlite,postgresql]
//       [--heartbeats-per-agent K] [--events-per-agent E] [--request-rows-per-agent R]
//       [--rows-per-event C] [--controller PATH]
#include <sys/resource.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/status/status_macros.h"
#include "tests/bench/controller_scale_controller.h"
#include "tests/bench/controller_scale_fleet.h"
#include "tests/bench/controller_scale_follower.h"
#include "tests/bench/controller_scale_level.h"
#include "tests/support/postgres_server.h"

namespace {

using kvbench::bench::ScaleController;
using kvbench::bench::ScaleFigures;
using kvbench::bench::ScaleFleet;
using kvbench::bench::ScaleFollower;
using kvbench::bench::ScaleLevel;
using kvbench::bench::ScaleRow;
using kvbench::testing::PostgresServer;

constexpr absl::Duration kReadyTimeout = absl::Seconds(30);
constexpr char kSqlite[] = "sqlite";
constexpr char kPostgresql[] = "postgresql";

struct Options {
  std::string controller = KV_CONTROLLER_PATH;  // the kv-controller binary under test
  std::vector<int> agents = {100, 1000, 10000};
  std::vector<std::string> stores = {kSqlite};
  kvbench::bench::ScaleLoad load;
};

// One store × N run: its column of figures, or why it failed.
struct Run {
  std::string store;
  int agents = 0;
  absl::Status status;
  std::vector<ScaleRow> column;
  ScaleFigures figures;
};

absl::Status RunLevel(const Options& options, PostgresServer* postgres, Run* run) {
  std::string dsn;
  if (postgres != nullptr) {
    KV_ASSIGN_OR_RETURN(dsn, postgres->CreateDatabase());
  }
  KV_ASSIGN_OR_RETURN(std::unique_ptr<ScaleController> controller,
                      ScaleController::Start(options.controller, kReadyTimeout, dsn));
  // Started once the leader leads (it logs "controller started listen=" only then).
  std::unique_ptr<ScaleFollower> follower;
  if (postgres != nullptr) {
    KV_ASSIGN_OR_RETURN(follower, ScaleFollower::Start(options.controller, kReadyTimeout, dsn));
  }
  // The fleet is declared after the controller, so its streams are cancelled first.
  ScaleFleet fleet(controller->address(), run->agents);
  ScaleLevel level(options.load, *controller, fleet, follower.get());
  absl::Status status = level.Run();
  run->column = level.column();
  run->figures = level.figures();
  return status;
}

std::string Heading(const Run& run) { return absl::StrCat(run.store, " N=", run.agents); }

// Every column has the same rows (ScaleLevel adds the follower's rows on SQLite too); a failed
// run's column is cut short.
void PrintTable(const std::vector<Run>& runs) {
  const Run* labels = nullptr;
  for (const Run& run : runs) {
    if (labels == nullptr || run.column.size() > labels->column.size()) labels = &run;
  }
  if (labels == nullptr) return;
  std::printf("\n%-52s %-5s", "metric", "unit");
  for (const Run& run : runs) std::printf(" %16s", Heading(run).c_str());
  std::printf("\n");
  for (size_t row = 0; row < labels->column.size(); ++row) {
    const ScaleRow& label = labels->column[row];
    std::printf("%-52s %-5s", label.metric.c_str(), label.unit.c_str());
    for (const Run& run : runs) {
      const bool has = row < run.column.size();
      std::printf(" %16s", has ? run.column[row].value.c_str() : "failed");
    }
    std::printf("\n");
  }
}

// The headline figures, one line per store and N.
void PrintSummary(const std::vector<Run>& runs) {
  std::printf("\n%-11s %7s %12s %18s %10s %12s %16s\n", "store", "agents", "KiB/agent",
              "submit->first ms", "events/s", "rows/s", "follower RSS MiB");
  for (const Run& run : runs) {
    if (!run.status.ok()) {
      std::printf("%-11s %7d %12s\n", run.store.c_str(), run.agents, "failed");
      continue;
    }
    const ScaleFigures& f = run.figures;
    const std::string follower =
        f.follower_rss_mib > 0 ? absl::StrFormat("%.1f", f.follower_rss_mib) : "-";
    std::printf("%-11s %7d %12.2f %18.2f %10.0f %12.0f %16s\n", run.store.c_str(), run.agents,
                f.rss_per_agent_kib, f.first_assignment_ms, f.events_per_s, f.rows_per_s,
                follower.c_str());
  }
}

bool ParseInts(const std::string& value, std::vector<int>* out) {
  out->clear();
  for (absl::string_view part : absl::StrSplit(value, ',')) {
    int n = 0;
    if (!absl::SimpleAtoi(part, &n) || n <= 0) return false;
    out->push_back(n);
  }
  return true;
}

bool ParseFlags(int argc, char** argv, Options* options) {
  kvbench::bench::ScaleLoad& load = options->load;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--controller") {
      options->controller = value;
    } else if (flag == "--agents") {
      if (!ParseInts(value, &options->agents)) return false;
    } else if (flag == "--heartbeats-per-agent") {
      if (!absl::SimpleAtoi(value, &load.heartbeats) || load.heartbeats < 0) return false;
    } else if (flag == "--store") {
      options->stores = absl::StrSplit(value, ',');
      for (const std::string& store : options->stores) {
        if (store != kSqlite && store != kPostgresql) return false;
      }
    } else if (flag == "--events-per-agent") {
      if (!absl::SimpleAtoi(value, &load.events) || load.events <= 0) return false;
    } else if (flag == "--request-rows-per-agent") {
      if (!absl::SimpleAtoi(value, &load.request_rows) || load.request_rows < 0) return false;
      load.cap_request_rows = false;
    } else if (flag == "--rows-per-event") {
      if (!absl::SimpleAtoi(value, &load.rows_per_event) || load.rows_per_event <= 0) return false;
    } else {
      return false;
    }
  }
  return argc % 2 == 1;
}

// N streams need few descriptors (one per connection), but the controller inherits the limit.
void RaiseFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseFlags(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: %s [--agents 100,1000,10000] [--store sqlite,postgresql] "
                 "[--heartbeats-per-agent K] [--events-per-agent E] [--request-rows-per-agent R] "
                 "[--rows-per-event C] [--controller PATH]\n",
                 argv[0]);
    return 2;
  }
  RaiseFileLimit();
  std::printf(
      "controller scale: %d heartbeats/agent, %d events/agent, %d request rows/agent%s in "
      "events of %d, 18-scenario SIM job; PostgreSQL fsync on, with a standby\n",
      options.load.heartbeats, options.load.events, options.load.request_rows,
      options.load.cap_request_rows
          ? absl::StrCat(" (at most ", kvbench::bench::kMaxRequestRowsPerLevel, " a level)").c_str()
          : "",
      options.load.rows_per_event);
  std::vector<Run> runs;
  bool failed = false;
  for (const std::string& store : options.stores) {
    std::unique_ptr<PostgresServer> postgres;
    if (store == kPostgresql) {
      kvbench::testing::PostgresServerOptions server_options;
      server_options.fsync = true;  // durable commits, as a production server runs
      absl::StatusOr<std::unique_ptr<PostgresServer>> started =
          PostgresServer::Start(server_options);
      if (!started.ok()) {
        std::fprintf(stderr, "%s\n", started.status().ToString().c_str());
        return 1;
      }
      postgres = *std::move(started);
    }
    for (int agents : options.agents) {
      std::fprintf(stderr, "running %s N=%d ...\n", store.c_str(), agents);
      Run& run = runs.emplace_back();
      run.store = store;
      run.agents = agents;
      run.status = RunLevel(options, postgres.get(), &run);
      if (!run.status.ok()) {
        failed = true;
        std::fprintf(stderr, "%s N=%d failed: %s\n", store.c_str(), agents,
                     std::string(run.status.message()).c_str());
      }
    }
  }
  PrintTable(runs);
  PrintSummary(runs);
  return failed ? 1 : 0;
}
