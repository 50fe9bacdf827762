#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kvbench::sim {

struct SimClockShared;  // the mapped file's layout (sim_clock.cc)

// The simulated clock of one scenario, shared by every simulated process of it on one host through
// a mapped file, so that simulated runs reproduce. Without it each kvsim-vllm
// derives simulated time from wall time ÷ time_scale, so where a user's next request lands
// relative to the engine's steps, and every millisecond the host is busy, changes the numbers.
// With it, simulated time is a conservative discrete-event clock:
//
// - Engines (kvsim-vllm replicas) are ranked participants. Each has at most one next event
//   (a time and a phase: kDeliver, a step's outputs going out at its end, before kStep, the next
//   step starting) plus "arrivals pending", which means a step at the current time for an engine
//   with no event (one whose step is under way takes them after it).
// - Messages: whoever sends something the other side must see at the current simulated time
//   (kv-runner a request, an engine a response's first token or its end) calls Sent() before
//   sending; the receiver calls Received() once it has taken it in. Simulated time never moves
//   while anything is in flight, so a message is read at the simulated instant it was sent:
//   kv-runner's stamps and an engine's arrivals need no timestamps on the wire.
// - Time moves only by turns: when nothing is in flight and no turn is held, the participant with
//   the earliest (time, phase, rank) event takes the turn, at that time. Only the turn's holder
//   touches engine state, so every process sees the same order of events whatever the host does.
// - Pacing: a turn is not taken before its wall-clock target, the previous turn's start plus the
//   simulated gap × time_scale (never faster than the time scale, so what samples the engines'
//   /metrics in wall time keeps up). A busy host makes the run take longer, not different; how
//   late a kDeliver turn started past its target is reported (TurnLateness).
// - A message lost (the client hung up on a response) would stop time; after kStallAfterSeconds
//   of wall time (Create's `stall_after_s`) with messages in flight and nothing moving, the clock
//   writes the count off and counts a stall (stalls()): the run goes on, no longer
//   deterministic, and says so.
//
// - A participant whose process died (a replica killed mid-run) is dropped by the next waiter
//   that would wait for it (its pid, checked every 200 ms), so the others go on.
//
// Thread- and process-safe; the state lives in the file (a robust, process-shared mutex and a
// futex word), this object only maps it.
class SimClock {
 public:
  enum Phase : int32_t { kDeliver = 0, kStep = 1 };
  static constexpr int kMaxRanks = 64;
  static constexpr double kStallAfterSeconds = 5;  // a busy host's replies take milliseconds

  struct Turn {
    double time_s = 0;
    Phase phase = kStep;
    double late_real_s = 0;  // wall seconds past the turn's pacing target (>= 0)
  };

  // Creates (or replaces) the clock file at `path`, time 0, nothing in flight.
  static absl::Status Create(const std::string& path, double time_scale,
                             double stall_after_s = kStallAfterSeconds);
  // Maps an existing clock file. FAILED_PRECONDITION naming the path when it is not one.
  static absl::StatusOr<std::unique_ptr<SimClock>> Open(const std::string& path);
  ~SimClock();
  SimClock(const SimClock&) = delete;
  SimClock& operator=(const SimClock&) = delete;

  double time_scale() const;
  double NowSeconds() const;
  int64_t stalls() const;

  void Sent(int count = 1);
  void Received(int count = 1);

  // Participant `rank` (0 .. kMaxRanks - 1, unique per clock: the replica index) joins with no
  // event; Leave() withdraws it (its events never fire).
  void Join(int rank);
  void Leave(int rank);
  // Arrivals wait at `rank`: without an event of its own it has a kStep turn at the current time.
  // Cleared by the turn that takes them: EndTurn's `arrivals_pending`.
  void MarkArrivals(int rank);
  // Blocks until `rank` holds the turn; nullopt once `cancelled()` (checked after Wake()) is true.
  std::optional<Turn> AwaitTurn(int rank, const std::function<bool()>& cancelled);
  // Gives the turn back with `rank`'s next event (`next_s` < 0: none) and whether arrivals came
  // in that its next turn must take (a kStep at the current time).
  void EndTurn(int rank, double next_s, Phase next_phase, bool arrivals_pending);
  // Wakes every waiter to re-check its `cancelled`.
  void Wake();

 private:
  SimClock(int fd, SimClockShared* shared);

  int fd_;
  SimClockShared* shared_;
};

}  // namespace kvbench::sim
