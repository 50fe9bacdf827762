#include "agent/link/event_spool.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "common/checksum/crc32.h"
#include "common/grpc/message_limits.h"
#include "tests/support/temp_dir.h"

namespace kvbench::agent {
namespace {

using testing::TempDir;

v1::Event ProgressEvent(const std::string& scenario_id, int requests_done, int attempt = 1) {
  v1::Event event;
  event.set_job_id("job-1");
  event.set_scenario_id(scenario_id);
  event.set_attempt(attempt);
  event.mutable_progress()->set_requests_done(requests_done);
  return event;
}

// The attempts listed, as "scenario#attempt".
std::vector<std::string> Attempts(const EventSpool& spool) {
  std::vector<std::string> names;
  for (const v1::ScenarioAttempt& attempt : spool.AttemptsWithUnacknowledgedEvents()) {
    CHECK(attempt.job_id() == "job-1");
    names.push_back(attempt.scenario_id() + "#" + std::to_string(attempt.attempt()));
  }
  return names;
}

std::unique_ptr<EventSpool> OpenSpool(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<EventSpool>> spool = EventSpool::Open(dir);
  REQUIRE(spool.ok());
  return *std::move(spool);
}

std::vector<int64_t> Seqs(const std::vector<v1::Event>& events) {
  std::vector<int64_t> seqs;
  for (const v1::Event& event : events) seqs.push_back(event.seq());
  return seqs;
}

int64_t Append(EventSpool* spool, v1::Event event) {
  absl::StatusOr<int64_t> seq = spool->Append(&event);
  REQUIRE(seq.ok());
  CHECK(event.seq() == *seq);
  return *seq;
}

TEST_CASE("EventSpool numbers events from 1 and keeps them until acknowledged", "[spool]") {
  TempDir dir;
  auto spool = OpenSpool(dir.File("spool"));
  CHECK(spool->last_seq() == 0);
  CHECK(Append(spool.get(), ProgressEvent("s1", 1)) == 1);
  CHECK(Append(spool.get(), ProgressEvent("s1", 2)) == 2);
  CHECK(Append(spool.get(), ProgressEvent("s2", 3)) == 3);
  CHECK(Seqs(spool->Unacknowledged()) == std::vector<int64_t>{1, 2, 3});
  CHECK(Seqs(spool->UnacknowledgedAfter(1)) == std::vector<int64_t>{2, 3});

  REQUIRE(spool->Acknowledge(2).ok());
  CHECK(Seqs(spool->Unacknowledged()) == std::vector<int64_t>{3});
  CHECK(spool->Unacknowledged()[0].progress().requests_done() == 3);
  // An older ack changes nothing.
  REQUIRE(spool->Acknowledge(1).ok());
  CHECK(Seqs(spool->Unacknowledged()) == std::vector<int64_t>{3});
}

TEST_CASE("EventSpool reopened keeps seqs increasing and the unacknowledged events", "[spool]") {
  TempDir dir;
  const std::string path = dir.File("spool");
  {
    auto spool = OpenSpool(path);
    for (int i = 1; i <= 5; ++i) Append(spool.get(), ProgressEvent("s1", i));
    REQUIRE(spool->Acknowledge(3).ok());
  }
  {
    auto spool = OpenSpool(path);
    CHECK(spool->last_seq() == 5);
    CHECK(spool->acked_seq() == 3);
    CHECK(Seqs(spool->Unacknowledged()) == std::vector<int64_t>{4, 5});
    CHECK(spool->Unacknowledged()[1].progress().requests_done() == 5);
    CHECK(Append(spool.get(), ProgressEvent("s1", 6)) == 6);
  }
  auto spool = OpenSpool(path);
  CHECK(Seqs(spool->Unacknowledged()) == std::vector<int64_t>{4, 5, 6});
}

TEST_CASE("EventSpool compacts when everything is acknowledged and keeps the seq", "[spool]") {
  TempDir dir;
  const std::string path = dir.File("spool");
  {
    auto spool = OpenSpool(path);
    for (int i = 1; i <= 50; ++i) Append(spool.get(), ProgressEvent("s1", i));
    const int64_t before = spool->log_bytes();
    REQUIRE(spool->Acknowledge(50).ok());
    CHECK(spool->Unacknowledged().empty());
    CHECK(spool->log_bytes() < before / 10);
    CHECK(static_cast<int64_t>(std::filesystem::file_size(path + "/events.log")) ==
          spool->log_bytes());
    CHECK(Append(spool.get(), ProgressEvent("s2", 51)) == 51);
  }
  auto spool = OpenSpool(path);
  CHECK(spool->last_seq() == 51);
  CHECK(Seqs(spool->Unacknowledged()) == std::vector<int64_t>{51});
  REQUIRE(spool->Acknowledge(51).ok());
  auto reopened_empty = OpenSpool(path + "-other");
  CHECK(reopened_empty->last_seq() == 0);
  spool.reset();
  CHECK(OpenSpool(path)->last_seq() == 51);
}

TEST_CASE("EventSpool compacts a large, mostly acknowledged log and keeps the rest", "[spool]") {
  TempDir dir;
  const std::string path = dir.File("spool");
  const std::string big(100 * 1024, 'x');
  const int count = static_cast<int>(EventSpool::kCompactBytes / big.size()) + 4;
  {
    auto spool = OpenSpool(path);
    for (int i = 1; i <= count; ++i) {
      v1::Event event = ProgressEvent(i == count ? "s2" : "s1", i);
      event.mutable_log()->set_text(big);
      Append(spool.get(), event);
    }
    const int64_t before = spool->log_bytes();
    CHECK(before > EventSpool::kCompactBytes);
    REQUIRE(spool->Acknowledge(count - 2).ok());
    CHECK(spool->log_bytes() < before / 4);
    CHECK(Seqs(spool->Unacknowledged()) == std::vector<int64_t>{count - 1, count});
  }
  auto spool = OpenSpool(path);
  CHECK(spool->last_seq() == count);
  CHECK(spool->acked_seq() == count - 2);
  REQUIRE(Seqs(spool->Unacknowledged()) == std::vector<int64_t>{count - 1, count});
  CHECK(spool->Unacknowledged()[1].log().text() == big);
  CHECK(Attempts(*spool) == std::vector<std::string>{"s1#1", "s2#1"});
  CHECK(Append(spool.get(), ProgressEvent("s2", 0)) == count + 1);
}

TEST_CASE("EventSpool takes the controller's higher acked seq as its new floor", "[spool]") {
  TempDir dir;
  auto spool = OpenSpool(dir.File("spool"));
  Append(spool.get(), ProgressEvent("s1", 1));
  REQUIRE(spool->Acknowledge(40).ok());
  CHECK(Append(spool.get(), ProgressEvent("s1", 2)) == 41);
  spool.reset();
  CHECK(OpenSpool(dir.File("spool"))->last_seq() == 41);
}

TEST_CASE("EventSpool refuses seqs it could not count past", "[spool]") {
  TempDir dir;
  auto spool = OpenSpool(dir.File("spool"));
  Append(spool.get(), ProgressEvent("s1", 1));
  // A controller acknowledging 2^63-1 would make the next seq overflow (found by fuzzing).
  absl::Status acked = spool->Acknowledge(INT64_MAX);
  CHECK(acked.code() == absl::StatusCode::kInvalidArgument);
  CHECK(spool->last_seq() == 1);
  CHECK(Append(spool.get(), ProgressEvent("s1", 2)) == 2);
  spool.reset();

  // A well-framed (CRC-valid) high-water record of 2^63-1 on disk is corruption: it and what
  // follows are dropped, and seqs go on from the good records.
  const std::string log = dir.File("spool") + "/events.log";
  const std::string payload = std::string("H") + std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
  std::string record;
  for (uint32_t value : {static_cast<uint32_t>(payload.size()), Crc32(payload)}) {
    for (int i = 0; i < 4; ++i) record.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  }
  std::ofstream(log, std::ios::app | std::ios::binary) << record << payload;
  auto reopened = OpenSpool(dir.File("spool"));
  CHECK(reopened->last_seq() == 2);
  CHECK(Append(reopened.get(), ProgressEvent("s1", 3)) == 3);
}

// What a reopened spool holds: the requests_done of each unacknowledged event (each event i of
// these tests says i), so a good record dropped, or one replaced by another, shows.
std::vector<int> RequestsDone(const EventSpool& spool) {
  std::vector<int> done;
  for (const v1::Event& event : spool.Unacknowledged()) {
    done.push_back(static_cast<int>(event.progress().requests_done()));
  }
  return done;
}

// A crash mid-append leaves a torn last record. Exactly that record goes: every record before it
// was fsync'ed before its Append returned (so the controller may have been told of it), and
// losing one would lose an event nobody will resend. The file is cut back to the good records'
// end, so the next append neither follows garbage nor reuses a good record's seq.
TEST_CASE("EventSpool drops a torn last record and keeps every good one", "[spool]") {
  TempDir dir;
  const std::string path = dir.File("spool");
  const std::string log = path + "/events.log";
  uintmax_t two_records = 0;
  {
    auto spool = OpenSpool(path);
    for (int i = 1; i <= 3; ++i) {
      Append(spool.get(), ProgressEvent("s1", i));
      if (i == 2) two_records = std::filesystem::file_size(log);
    }
  }
  const uintmax_t three_records = std::filesystem::file_size(log);
  std::vector<int> kept;
  uintmax_t good_bytes = 0;
  SECTION("cut in the middle of the last record: the two before it stay") {
    std::filesystem::resize_file(log, three_records - 3);
    good_bytes = two_records;
    kept = {1, 2};
  }
  SECTION("cut inside the 4th record's header: all three before it stay") {
    {
      auto spool = OpenSpool(path);
      Append(spool.get(), ProgressEvent("s1", 4));
    }
    // 5 of the 4th record's 8 header bytes made it to disk.
    std::filesystem::resize_file(log, three_records + 5);
    good_bytes = three_records;
    kept = {1, 2, 3};
  }
  SECTION("garbage appended after the last record: all three stay") {
    std::ofstream(log, std::ios::app | std::ios::binary)
        << std::string("\x07\x00\x00\x00zzzzzzz", 11);
    good_bytes = three_records;
    kept = {1, 2, 3};
  }
  auto spool = OpenSpool(path);
  CHECK(RequestsDone(*spool) == kept);
  std::vector<int64_t> seqs(kept.begin(), kept.end());
  CHECK(Seqs(spool->Unacknowledged()) == seqs);
  CHECK(spool->last_seq() == static_cast<int64_t>(kept.size()));
  CHECK(std::filesystem::file_size(log) == good_bytes);
  CHECK(spool->log_bytes() == static_cast<int64_t>(good_bytes));
  // New records follow the good ones, and a reopen finds them all.
  const int64_t next = Append(spool.get(), ProgressEvent("s1", 9));
  CHECK(next == static_cast<int64_t>(kept.size()) + 1);
  spool.reset();
  auto reopened = OpenSpool(path);
  kept.push_back(9);
  CHECK(RequestsDone(*reopened) == kept);
  seqs.push_back(next);
  CHECK(Seqs(reopened->Unacknowledged()) == seqs);
}

TEST_CASE("EventSpool lists the scenario attempts with unacknowledged events", "[spool]") {
  TempDir dir;
  auto spool = OpenSpool(dir.File("spool"));
  CHECK(Attempts(*spool).empty());
  Append(spool.get(), ProgressEvent("s1", 1));
  Append(spool.get(), ProgressEvent("s2", 2));
  Append(spool.get(), ProgressEvent("s2", 3));
  Append(spool.get(), ProgressEvent("s1", 4, /*attempt=*/2));
  CHECK(Attempts(*spool) == std::vector<std::string>{"s1#1", "s2#1", "s1#2"});
  REQUIRE(spool->Acknowledge(1).ok());
  CHECK(Attempts(*spool) == std::vector<std::string>{"s2#1", "s1#2"});
  REQUIRE(spool->Acknowledge(4).ok());
  CHECK(Attempts(*spool).empty());
}

TEST_CASE("EventSpool::Open fails clearly when its folder cannot be made", "[spool]") {
  TempDir dir;
  const std::string file = dir.WriteFile("not-a-dir", "x");
  absl::StatusOr<std::unique_ptr<EventSpool>> spool = EventSpool::Open(file + "/spool");
  REQUIRE(!spool.ok());
  CHECK(spool.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(spool.status().message()).find(file) != std::string::npos);
}

TEST_CASE("An event over the link's limit is spooled as its scenario's named failure") {
  TempDir dir;
  auto spool = OpenSpool(dir.path());
  v1::Event small = ProgressEvent("s1", 1);
  REQUIRE(spool->Append(&small).ok());
  v1::Event huge = ProgressEvent("s2", 2, /*attempt=*/3);
  huge.set_agent_id("agent-1");
  huge.mutable_log()->set_text(std::string(kMaxEventBytes + 1, 'x'));
  absl::StatusOr<int64_t> seq = spool->Append(&huge);
  REQUIRE(seq.ok());
  CHECK(*seq == 2);  // the seq is kept: the stream stays contiguous
  CHECK(huge.has_state_change());
  CHECK(huge.state_change().state() == v1::SCENARIO_STATE_FAILED);
  CHECK_THAT(huge.state_change().reason(),
             Catch::Contains("the agent could not send a log event of ") &&
                 Catch::Contains(absl::StrCat("over the agent link's limit of ", kMaxEventBytes)));
  CHECK(huge.scenario_id() == "s2");
  CHECK(huge.attempt() == 3);
  CHECK(huge.agent_id() == "agent-1");
  // What a restarted agent sends is the failure too, and every record is within the limit.
  spool.reset();
  auto reopened = OpenSpool(dir.path());
  const std::vector<v1::Event> unacked = reopened->Unacknowledged();
  REQUIRE(unacked.size() == 2);
  CHECK(unacked[1].has_state_change());
  CHECK(std::filesystem::file_size(dir.File(EventSpool::kLogFileName)) < 64 * 1024);
}

}  // namespace
}  // namespace kvbench::agent
