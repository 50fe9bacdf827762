#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/datasets/conversation.h"
#include "agent/results/counted_prompts.h"
#include "agent/results/reuse_opportunity.h"
#include "agent/results/scenario_metrics.h"
#include "agent/runner/loop_lag_probe.h"
#include "agent/runner/prompt_counter.h"
#include "agent/runner/record_writer.h"
#include "agent/runner/replay_clock.h"
#include "agent/runner/request_record.h"
#include "agent/runner/runner_options.h"
#include "common/http/async_http_client.h"
#include "common/sync/stop_callback.h"
#include "common/sync/stop_source.h"

namespace kvbench::runner {

class RoundExchange;

// What a replay produced: every finished request, the users it meant to run, and whether a
// stop signal cut it short.
struct ReplayResult {
  std::vector<RequestRecord> records;  // in finishing order
  std::vector<agent::results::PlannedUser> planned_users;
  bool stopped = false;
  double clock_origin_s = 0;  // the run's clock start, raw steady_clock seconds
  // From the prompts as /tokenize counted them, in send order; unset when they were not counted.
  std::optional<agent::results::ReuseOpportunity> reuse;
};

// Called once the prompts are counted, just before the run's clock starts, with the counted
// prompts of the users to replay (empty when not counted). A non-OK status ends the run there.
using BeforeClockHook =
    std::function<absl::Status(const std::vector<agent::results::CountedPrompt>&)>;

// The closed-loop replay (DESIGN.md "Replay semantics"), event-driven: `concurrency` slots, each a
// RoundExchange on the AsyncHttpClient's I/O thread(s). A slot's next request is started from the
// previous one's completion callback, on the I/O thread, so nothing but the network sits between
// a round's end and the next round's send.
//
// - Before the clock starts: every body is serialized; with `count_prompts` (forced when ISL > 0)
//   every prompt is counted through /tokenize (PromptCounter). FitUnderIsl counts any users'
//   prompts beforehand, to choose among those that fit.
// - The users replayed are the given ones (already cut to the requested count); a slot whose
//   user ends takes the next one.
// - A user sends its rounds strictly in order; round 1 is due when its slot takes it, round k+1
//   when round k's response ended (scheduled_s); x-user-id = the user's id on every request.
// - With ISL > 0, a round whose prompt is over ISL tokens ends its user there, unsent
//   (truncated_by_isl: planned_users[i].sendable_rounds says how many rounds it may send).
// - A failed request (transport, non-200, error event, truncated stream, timeout) ends its user,
//   after up to --agentic-max-attempts attempts when agentic tools are on (gpt_oss_agentic.h).
// - While the clock runs, a LoopLagProbe watches the client's I/O loop; each record's
//   loop_lag_s says how late the loop ran when its first token and its end were stamped (null
//   when the client cannot be probed).
// - `stop` (SIGINT/SIGTERM) stops launching and aborts what is in flight (not recorded), so those
//   users end incomplete; the records so far are complete.
class Replay {
 public:
  // `client`, `writer` (may be null), `stop` and `sim_clock` (may be null: wall time) must outlive
  // the replay. The client is shut down when `stop` is requested (aborting what is in flight;
  // every wait then ends). With `sim_clock` every stamp is simulated (ReplayClock).
  Replay(AsyncHttpClient* client, const RunnerOptions& options, RecordWriter* writer,
         StopSource* stop, sim::SimClock* sim_clock = nullptr);
  ~Replay();

  // `warmup` short requests with their own user ids ("warmup-<i>") and prefixes, one after the
  // other, not recorded. UNAVAILABLE naming the first failure; INVALID_ARGUMENT naming the models
  // the server serves when it answered 404 and GET /v1/models does not list --model.
  absl::Status Warmup();

  // ISL > 0: whether every round of each of `users` has a prompt within ISL tokens, counted
  // through /tokenize as Run counts them (so a selection among the users that fit runs whole).
  // UNAVAILABLE when /tokenize cannot count; CANCELLED when stopped.
  absl::StatusOr<std::vector<bool>> FitUnderIsl(const std::vector<datasets::VirtualUser>& users);

  // Replays `users`. Fails only before the first request: UNAVAILABLE when prompts must be
  // counted (ISL > 0) and /tokenize cannot; CANCELLED when stopped while counting.
  // `before_clock` (may be empty) runs after counting, before the clock starts (BeforeClockHook).
  absl::StatusOr<ReplayResult> Run(const std::vector<datasets::VirtualUser>& users,
                                   bool count_prompts,
                                   const BeforeClockHook& before_clock = nullptr);

 private:
  struct PreparedUser {
    const datasets::VirtualUser* user = nullptr;
    std::vector<std::string> bodies;  // chat bodies, one per round
    std::vector<PromptCount> counts;  // per round, when counted
    size_t sendable_rounds = 0;       // rounds before the first over ISL
  };
  struct Slot;

  // OK, or INVALID_ARGUMENT when the server's /v1/models lists models but not options_.model.
  absl::Status CheckModelServed();
  std::vector<PreparedUser> Prepare(const std::vector<datasets::VirtualUser>& users,
                                    std::vector<std::string>* tokenize_bodies) const;
  // Counts `tokenize_bodies` (the replayed users' rounds) into prepared_.
  absl::Status CountPrompts(const std::vector<std::string>& tokenize_bodies);
  size_t SendableRounds(const std::vector<PromptCount>& counts) const;
  std::vector<agent::results::CountedPrompt> CountedPrompts() const;
  void StartRound(Slot* slot);
  void OnRoundDone(Slot* slot, RequestRecord record, bool cancelled);
  void TakeNextUser(Slot* slot);
  void EndSlot();
  // The largest probe lateness of the loop-lag buckets holding the record's first token and end
  // (LagTimeline::MaxBetween of each instant): how late those stamps may be.
  std::optional<double> StampLag(const RequestRecord& record) const;
  void WaitForSlots();
  agent::results::ReuseOpportunity ComputeReuse(const std::vector<RequestRecord>& records) const;

  AsyncHttpClient* client_;
  RunnerOptions options_;
  RecordWriter* writer_;
  StopSource* stop_;
  sim::SimClock* const sim_clock_;  // may be null
  ReplayClock clock_;

  std::unique_ptr<LoopLagProbe> probe_;  // while the clock runs
  std::vector<PreparedUser> prepared_;
  std::atomic<size_t> next_user_{0};
  std::vector<std::unique_ptr<Slot>> slots_;

  std::mutex mu_;
  std::condition_variable slots_ended_;
  int active_slots_ = 0;                // guarded by mu_
  std::vector<RequestRecord> records_;  // guarded by mu_

  // Last: unregistered first, before what the shutdown touches goes.
  StopCallback shutdown_on_stop_;
};

}  // namespace kvbench::runner
