// ReplayProgress (agent/scenario/replay_progress.h) over real files written as kv-runner writes
// them: the plan first, then request records appended in pieces (not "0/N
// sessions" to the end).

#include "agent/scenario/replay_progress.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "agent/results/counted_prompts.h"
#include "agent/runner/request_record.h"
#include "tests/support/temp_dir.h"

namespace kvbench::agent {
namespace {

std::string RecordLine(const std::string& user, int round) {
  runner::RequestRecord record;
  record.user_id = user;
  record.session_id = user;
  record.round = round;
  return runner::ToJsonLine(record) + "\n";
}

void Append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app) << text;
}

TEST_CASE("Replay progress: requests as appended, sessions once a user's last round is in",
          "[replay_progress]") {
  testing::TempDir dir;
  const std::string requests = dir.File("requests.jsonl");
  const std::string prompts = dir.File("prompts.jsonl");
  ReplayProgress progress(requests, prompts);
  CHECK_FALSE(progress.Update());  // nothing written yet
  {
    std::ofstream out(prompts);
    for (int round = 1; round <= 3; ++round) {
      out << results::ToPromptLine({"u1", round, 100, {1, 2}}) << "\n";
    }
    for (int round = 1; round <= 2; ++round) {
      out << results::ToPromptLine({"u2", round, 100, {3}}) << "\n";
    }
  }
  progress.LoadPlan();
  CHECK(progress.sessions_done() == 0);
  // The totals are the plan's, not the sessions asked for.
  CHECK(progress.sessions_total() == 2);
  CHECK(progress.requests_total() == 5);

  Append(requests, RecordLine("u1", 1) + RecordLine("u2", 1));
  CHECK(progress.Update());
  CHECK(progress.requests_done() == 2);
  CHECK(progress.sessions_done() == 0);

  // u2's last round arrives in two pieces: counted once its newline is there.
  const std::string last = RecordLine("u2", 2);
  Append(requests, last.substr(0, 20));
  CHECK_FALSE(progress.Update());
  CHECK(progress.requests_done() == 2);
  Append(requests, last.substr(20) + RecordLine("u1", 2));
  CHECK(progress.Update());
  CHECK(progress.requests_done() == 4);
  CHECK(progress.sessions_done() == 1);

  Append(requests, RecordLine("u1", 3));
  CHECK(progress.Update());
  CHECK(progress.requests_done() == 5);
  CHECK(progress.sessions_done() == 2);
  CHECK_FALSE(progress.Update());  // nothing new
}

TEST_CASE("Replay progress without a plan counts requests and leaves sessions unknown",
          "[replay_progress]") {
  testing::TempDir dir;
  ReplayProgress progress(dir.File("requests.jsonl"), dir.File("no-prompts.jsonl"));
  progress.LoadPlan();
  Append(dir.File("requests.jsonl"), RecordLine("u1", 1));
  CHECK(progress.Update());
  CHECK(progress.requests_done() == 1);
  CHECK_FALSE(progress.sessions_done().has_value());
  CHECK_FALSE(progress.sessions_total().has_value());
  CHECK_FALSE(progress.requests_total().has_value());
}

}  // namespace
}  // namespace kvbench::agent
