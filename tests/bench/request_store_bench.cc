// The controller's store of per-request records: SqlStore::AppendEvents with
// RequestRecords events as agents send them (2,000 rows per event, one event per commit as they
// arrive at a scenario's end), realistic rows (ids like kv-runner's, six times, token counts).
// Prints rows/s ingested, bytes per request stored, and the read-back rate of ListRequests, on
// either engine of the store:
// - sqlite (default): a file in --dir (default $TMPDIR or /tmp), its bytes after a checkpoint;
// - postgresql: the database of --dsn, else a fresh server this bench starts in a temp folder
//   with fsync, synchronous_commit and full_page_writes on (tests/support/postgres_server.h), its
//   bytes as pg_total_relation_size('requests').
//
//   build/bin/kv_bench_request_store [--rows N] [--engine sqlite|postgresql] [--dir DIR]
//                                    [--dsn DSN]

#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/store/sql_store.h"
#include "kvbench/v1/event.pb.h"
#include "tests/support/postgres_server.h"

namespace {

using kvbench::controller::SqlStore;
constexpr int kRowsPerChunk = 2000;  // agent/scenario/request_chunks.h

kvbench::v1::Event Chunk(int64_t seq, int first, int rows, int total) {
  kvbench::v1::Event event;
  event.set_seq(seq);
  event.set_agent_id("bench-agent");
  event.set_job_id("bench-job");
  event.set_scenario_id("00-gpu-c64");
  event.set_attempt(1);
  kvbench::v1::RequestRecords& records = *event.mutable_requests();
  records.set_first_index(first);
  records.set_total(total);
  for (int i = first; i < first + rows; ++i) {
    kvbench::v1::RequestRow& row = *records.add_rows();
    row.set_user_id(absl::StrFormat("%04d-%02d", i / 10, i % 10));
    row.set_session_id(absl::StrFormat("tau2__airline__task%d__trial0__gpt-4.1", i / 10));
    row.set_round(i % 10 + 1);
    const double t = 0.731 * i;
    row.set_scheduled_s(t);
    row.set_sent_s(t + 0.000137);
    row.set_first_token_s(t + 0.0912);
    row.set_end_s(t + 1.5031);
    row.set_ttft_s(0.0912 + 0.0001 * (i % 97));
    row.set_prompt_tokens(2000 + 37 * (i % 50));
    row.set_output_tokens(64);
    row.set_cached_tokens(1792);
    row.set_http_status(200);
    row.set_attempts(1);
  }
  return event;
}

// The bytes the requests table and its index take in PostgreSQL, through a connection of its own
// (the store's holds the writer lock, not a query seam); -1 when it cannot tell.
int64_t PostgresRequestBytes(const std::string& dsn) {
  PGconn* conn = PQconnectdb(dsn.c_str());
  int64_t bytes = -1;
  if (PQstatus(conn) == CONNECTION_OK) {
    PGresult* result = PQexec(conn, "SELECT pg_total_relation_size('requests')");
    if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1) {
      (void)absl::SimpleAtoi(PQgetvalue(result, 0, 0), &bytes);
    }
    PQclear(result);
  }
  PQfinish(conn);
  return bytes;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  int total = 200000;
  std::string dir, engine = "sqlite", dsn;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rows" && absl::SimpleAtoi(argv[i + 1], &total) && total > 0) continue;
    if (flag == "--dir") {
      dir = argv[i + 1];
      continue;
    }
    if (flag == "--engine" &&
        (std::string(argv[i + 1]) == "sqlite" || std::string(argv[i + 1]) == "postgresql")) {
      engine = argv[i + 1];
      continue;
    }
    if (flag == "--dsn") {
      dsn = argv[i + 1];
      engine = "postgresql";
      continue;
    }
    std::fprintf(stderr,
                 "usage: %s [--rows N] [--engine sqlite|postgresql] [--dir DIR] [--dsn DSN]\n",
                 argv[0]);
    return 2;
  }
  const bool postgresql = engine == "postgresql";
  std::unique_ptr<kvbench::testing::PostgresServer> server;
  if (postgresql && dsn.empty()) {
    kvbench::testing::PostgresServerOptions options;
    options.fsync = true;  // durable commits, as a production server runs
    auto started = kvbench::testing::PostgresServer::Start(options);
    if (!started.ok()) {
      std::fprintf(stderr, "%s\n", started.status().ToString().c_str());
      return 1;
    }
    server = *std::move(started);
    auto created = server->CreateDatabase();
    if (!created.ok()) {
      std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
      return 1;
    }
    dsn = *created;
  }
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  const std::string path = absl::StrCat(dir, "/kv-bench-request-store-", ::getpid(), ".db");
  int64_t empty_bytes = 0;
  {
    absl::StatusOr<std::unique_ptr<SqlStore>> store =
        postgresql ? SqlStore::OpenPostgres(dsn) : SqlStore::OpenSqlite(path);
    if (!store.ok()) {
      std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
      return 1;
    }
    empty_bytes = postgresql ? PostgresRequestBytes(dsn)
                             : static_cast<int64_t>(std::filesystem::file_size(path));
    const auto start = std::chrono::steady_clock::now();
    int64_t seq = 0;
    for (int first = 0; first < total; first += kRowsPerChunk) {
      const int rows = std::min(kRowsPerChunk, total - first);
      absl::StatusOr<std::vector<bool>> stored =
          (*store)->Events().AppendEvents({Chunk(++seq, first, rows, total)});
      if (!stored.ok()) {
        std::fprintf(stderr, "%s\n", stored.status().ToString().c_str());
        return 1;
      }
    }
    const double ingest_s = Seconds(start);
    const auto read_start = std::chrono::steady_clock::now();
    int64_t read = 0;
    int64_t after = -1;
    while (true) {
      auto chunks = (*store)->Events().ListRequests("bench-job", "00-gpu-c64", 1, after, 16);
      if (!chunks.ok() || chunks->empty()) break;
      for (const auto& chunk : *chunks) {
        read += chunk.rows_size();
        after = chunk.first_index();
      }
    }
    const double read_s = Seconds(read_start);
    std::printf("%s ingest: %d rows in %d events of %d: %.0f rows/s (%.1f ms per event)\n",
                engine.c_str(), total, static_cast<int>(seq), kRowsPerChunk, total / ingest_s,
                1000 * ingest_s / seq);
    std::printf("read back: %lld rows at %.0f rows/s\n", static_cast<long long>(read),
                read / read_s);
  }
  int64_t bytes = 0;
  if (postgresql) {
    bytes = PostgresRequestBytes(dsn) - empty_bytes;
  } else {
    // Reopened and closed: the WAL is checkpointed into the file.
    { auto reopened = SqlStore::OpenSqlite(path); }
    bytes = static_cast<int64_t>(std::filesystem::file_size(path)) - empty_bytes;
  }
  std::printf("stored: %.1f bytes per request (%lld bytes for %d)\n",
              static_cast<double>(bytes) / total, static_cast<long long>(bytes), total);
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  return 0;
}
