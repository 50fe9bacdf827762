// The controller's durable event log on its own: SqlStore::AppendEvents (PRAGMA synchronous =
// FULL, one fsync per transaction) at batch sizes 1 (one commit, so one fsync, per event) up to
// 1,000 (group commit, as the controller's ingest batches what arrived while it was busy). Prints,
// per batch size, events/s and the mean time per commit. The file lives in --dir (default
// $TMPDIR or /tmp): the figures are the disk's. Prints figures only (STYLE.md rule 20).
//
//   build/bin/kv_bench_event_store [--events N] [--batches 1,10,100,1000] [--dir DIR]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "controller/store/sql_store.h"
#include "kvbench/v1/event.pb.h"

namespace {

using kvbench::controller::SqlStore;

struct Options {
  int events = 2000;  // per batch size; at ~1 ms per fsync, batch size 1 takes a few seconds
  std::vector<int> batches = {1, 10, 100, 1000};
  std::string dir;
};

bool ParseFlags(int argc, char** argv, Options* options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--events") {
      if (!absl::SimpleAtoi(value, &options->events) || options->events <= 0) return false;
    } else if (flag == "--batches") {
      options->batches.clear();
      for (absl::string_view part : absl::StrSplit(value, ',')) {
        int batch = 0;
        if (!absl::SimpleAtoi(part, &batch) || batch <= 0) return false;
        options->batches.push_back(batch);
      }
    } else if (flag == "--dir") {
      options->dir = value;
    } else {
      return false;
    }
  }
  return argc % 2 == 1;
}

// An agent's Progress event as the agents send them during a replay.
kvbench::v1::Event ProgressEvent(int64_t seq) {
  kvbench::v1::Event event;
  event.set_seq(seq);
  event.set_agent_id("bench-agent");
  event.set_job_id("bench-job");
  event.set_scenario_id("00-gpu-c2");
  event.set_unix_ms(1'700'000'000'000 + seq);
  kvbench::v1::Progress* progress = event.mutable_progress();
  progress->set_phase(kvbench::v1::SCENARIO_PHASE_REPLAY);
  progress->set_requests_done(seq);
  return event;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseFlags(argc, argv, &options)) {
    std::fprintf(stderr, "usage: %s [--events N] [--batches 1,10,100,1000] [--dir DIR]\n", argv[0]);
    return 2;
  }
  if (options.dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    options.dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  const std::string path = absl::StrCat(options.dir, "/kv-bench-event-store-", ::getpid(), ".db");
  std::printf("event store: %d events per batch size, SQLite file %s (synchronous = FULL)\n",
              options.events, path.c_str());
  std::printf("%12s %10s %14s %14s\n", "events/commit", "commits", "events/s", "ms/commit");
  int64_t seq = 0;
  for (const int batch : options.batches) {
    // A fresh file per batch size, so no size's figure carries another's pages.
    ::unlink(path.c_str());
    auto store = SqlStore::OpenSqlite(path);
    if (!store.ok()) {
      std::fprintf(stderr, "cannot open %s: %s\n", path.c_str(), store.status().ToString().c_str());
      return 1;
    }
    const int commits = (options.events + batch - 1) / batch;
    const auto start = std::chrono::steady_clock::now();
    for (int commit = 0; commit < commits; ++commit) {
      std::vector<kvbench::v1::Event> events;
      events.reserve(batch);
      for (int i = 0; i < batch; ++i) events.push_back(ProgressEvent(++seq));
      auto stored = (*store)->Events().AppendEvents(events);
      if (!stored.ok()) {
        std::fprintf(stderr, "AppendEvents: %s\n", stored.status().ToString().c_str());
        return 1;
      }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%12d %10d %14.0f %14.3f\n", batch, commits,
                static_cast<double>(commits) * batch / seconds, seconds * 1e3 / commits);
  }
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    ::unlink(absl::StrCat(path, suffix).c_str());
  }
  return 0;
}
