// EventIngest on a stepped loop with a real SQLite store: a burst is stored over several commits
// (at most kMaxEventsPerCommit events and kMaxRowsPerCommit request rows each), with the loop's
// other tasks run between them, and Flush() still stores everything at once.

#include "controller/core/event_ingest.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "controller/store/sql_store.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_executor.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/controller/core/fake_agent_channel.h"

namespace kvbench::controller {
namespace {

using testing::FakeAgentChannel;

struct IngestHarness {
  IngestHarness() : loop(&clock) {
    store = *SqlStore::OpenSqlite(dir.path() + "/controller.db");
    ingest =
        std::make_unique<EventIngest>(store.get(), &loop, [this](const v1::Event&) { ++applied; });
  }

  testing::TempDir dir;
  testing::FakeClock clock;
  testing::FakeExecutor loop;
  std::unique_ptr<SqlStore> store;
  std::unique_ptr<EventIngest> ingest;
  int applied = 0;
};

v1::Event Progress(int64_t seq) {
  v1::Event event;
  event.set_seq(seq);
  event.set_agent_id("agent-a");
  event.set_job_id("job");
  event.mutable_progress()->set_requests_done(seq);
  return event;
}

v1::Event Requests(int64_t seq, int first_index, int rows) {
  v1::Event event;
  event.set_seq(seq);
  event.set_agent_id("agent-a");
  event.set_job_id("job");
  event.set_scenario_id("scenario");
  event.mutable_requests()->set_first_index(first_index);
  for (int i = 0; i < rows; ++i) event.mutable_requests()->add_rows()->set_round(1);
  return event;
}

int Acks(const FakeAgentChannel& channel) {
  int acks = 0;
  for (const auto& message : channel.sent) acks += message.has_ack() ? 1 : 0;
  return acks;
}

TEST_CASE("request chunks over the row limit are stored in several commits, the loop between",
          "[event_ingest]") {
  IngestHarness h;
  FakeAgentChannel channel;
  const int rows = static_cast<int>(EventIngest::kMaxRowsPerCommit / 2 + 1);  // one per commit
  for (int i = 0; i < 3; ++i) h.ingest->Queue(&channel, Requests(1 + i, i * rows, rows));
  h.loop.Post("other", [] {});
  h.loop.RunUntilIdle();
  CHECK(h.loop.ran() == std::vector<std::string>{"controller.ingest", "other", "controller.ingest",
                                                 "controller.ingest"});
  CHECK(h.ingest->counters().commits == 3);
  CHECK(h.ingest->counters().stored == 3);
  CHECK(h.applied == 3);
  CHECK(Acks(channel) == 3);
  CHECK(channel.LastAck() == 3);
}

TEST_CASE("events over the event limit are stored in two commits, and Flush stores all at once",
          "[event_ingest]") {
  IngestHarness h;
  FakeAgentChannel channel;
  const int64_t count = static_cast<int64_t>(EventIngest::kMaxEventsPerCommit) + 1;
  for (int64_t seq = 1; seq <= count; ++seq) h.ingest->Queue(&channel, Progress(seq));
  h.loop.RunUntilIdle();
  CHECK(h.ingest->counters().commits == 2);
  CHECK(h.ingest->counters().stored == count);
  CHECK(channel.LastAck() == count);

  for (int64_t seq = count + 1; seq <= 2 * count; ++seq) h.ingest->Queue(&channel, Progress(seq));
  h.ingest->Flush();
  CHECK(h.ingest->counters().commits == 4);
  CHECK(h.ingest->counters().stored == 2 * count);
  CHECK(channel.LastAck() == 2 * count);
  h.loop.RunUntilIdle();  // the posted commit finds nothing left
  CHECK(h.ingest->counters().commits == 4);
}

TEST_CASE("a stream that ends with events still queued leaves nothing pointing at it",
          "[event_ingest]") {
  IngestHarness h;
  FakeAgentChannel gone;
  FakeAgentChannel staying;
  const int rows = static_cast<int>(EventIngest::kMaxRowsPerCommit);
  h.ingest->Queue(&gone, Requests(1, 0, rows));  // one commit's worth
  h.ingest->Queue(&gone, Requests(2, rows, 10));
  h.ingest->Queue(&staying, Progress(7));
  // Its disconnect, posted while the first commit was queued: it runs before the commit left.
  h.loop.Post("disconnect", [&] { h.ingest->Forget(&gone); });
  h.loop.RunUntilIdle();
  CHECK(h.loop.ran() ==
        std::vector<std::string>{"controller.ingest", "disconnect", "controller.ingest"});
  CHECK(Acks(gone) == 1);  // seq 2 dropped unacknowledged: the agent replays it
  CHECK(gone.LastAck() == 1);
  CHECK(Acks(staying) == 1);
  CHECK(h.applied == 2);
}

}  // namespace
}  // namespace kvbench::controller
