#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "agent/datasets/conversation.h"
#include "agent/results/scenario_metrics.h"
#include "agent/runner/record_writer.h"
#include "agent/runner/request_record.h"
#include "agent/runner/runner_options.h"
#include "common/http/http_client.h"

namespace kvbench::runner {

class ReplayClock;
class RoundSender;

// What a replay produced: every finished request, the users it meant to run, and whether a
// stop signal cut it short.
struct ReplayResult {
  std::vector<RequestRecord> records;  // in finishing order
  std::vector<results::PlannedUser> planned_users;
  bool stopped = false;
  double clock_origin_s = 0;  // the run's clock start, raw steady_clock seconds
};

// The closed-loop replay (DESIGN.md "Replay semantics").
//
// Client: `concurrency` slots, one worker thread per slot, each blocking in the shared HttpClient
// (CurlHttpClient: a pool of keep-alive easy handles) for one request at a time. Blocking curl per
// slot thread is the first client; a comparison against libcurl-multi / Boost.Beast on a few I/O
// threads (tests/bench runner roofline) is pending measurement.
//
// - The users replayed are the first `requested_sessions` virtual users (all of them when fewer:
//   achieved = min(requested, virtual users)); a slot whose user ends takes the next one.
// - A user sends its rounds strictly in order; round 1 is due when its slot takes it, round k+1
//   when round k's response ended (scheduled_s); x-user-id = the user's id on every request.
// - With ISL > 0, each round's prompt is counted through /tokenize first (that time is part of the
//   dispatch lag, sent_s - scheduled_s); a round over ISL ends its user, unsent (incomplete).
// - A failed request (transport, non-200, error event, truncated stream, timeout) ends its user.
// - `stop` (SIGINT/SIGTERM) stops launching rounds; in-flight streams are aborted at their next
//   chunk and not recorded, so those users end incomplete.
// - All request bodies are serialized before the clock starts; nothing is logged while it runs.
class Replay {
 public:
  // `client`, `writer` (may be null) and `stop` must outlive the replay.
  Replay(HttpClient* client, const RunnerOptions& options, RecordWriter* writer,
         const std::atomic<bool>* stop);

  // `warmup` short requests with their own user ids ("warmup-<i>") and prefixes, one after the
  // other, not recorded. UNAVAILABLE naming the first failure.
  absl::Status Warmup();

  // Replays `users` (already cut to the requested count) to the end or until `stop`.
  ReplayResult Run(const std::vector<datasets::VirtualUser>& users);

 private:
  struct PreparedUser {
    const datasets::VirtualUser* user = nullptr;
    std::vector<std::string> bodies;           // chat bodies, one per round
    std::vector<std::string> tokenize_bodies;  // only when isl > 0
  };

  std::vector<PreparedUser> Prepare(const std::vector<datasets::VirtualUser>& users) const;
  void RunSlot(const std::vector<PreparedUser>& prepared, std::atomic<size_t>* next,
               const RoundSender& sender, const ReplayClock& clock);
  void RunUser(const PreparedUser& user, const RoundSender& sender, const ReplayClock& clock);
  void Finish(RequestRecord record);

  HttpClient* client_;
  RunnerOptions options_;
  RecordWriter* writer_;
  const std::atomic<bool>* stop_;

  std::mutex mu_;
  std::vector<RequestRecord> records_;  // guarded by mu_
};

}  // namespace kvbench::runner
