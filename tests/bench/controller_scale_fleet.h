#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace kvbench::bench {

class ScaleAgent;

// A fleet of simulated agents in one process: N AgentLink.Attach streams (gRPC callback API, one
// write in flight per stream) spread over ceil(N / streams_per_channel) channels, each its own
// TCP connection. The agents only talk: they register, send what a phase asks and count what the
// controller answers; the fleet turns those counts into "every agent got there" instants.
class ScaleFleet {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  // Streams per channel (one TCP connection each); about what one real agent host never exceeds.
  static constexpr int kDefaultStreamsPerChannel = 100;

  ScaleFleet(std::string address, int agents, int streams_per_channel = kDefaultStreamsPerChannel);
  // Cancels every stream still open and waits (bounded) for gRPC to finish with each.
  ~ScaleFleet();
  ScaleFleet(const ScaleFleet&) = delete;
  ScaleFleet& operator=(const ScaleFleet&) = delete;

  int size() const { return static_cast<int>(agents_.size()); }
  int channels() const { return channels_; }

  // Opens every stream with its Register first. Then WaitRegistered.
  void Attach();
  bool WaitRegistered(absl::Duration timeout);

  // Starts a phase in which every agent expects `acks_per_agent` more Acks; returns the instant
  // the phase starts. Queue the phase's messages after this call, then WaitAcks.
  SteadyTime BeginAckPhase(int acks_per_agent);
  // Each agent queues `heartbeats` Heartbeats back to back, then one Event: a Progress numbered
  // `seq` (job and scenario its assignment's, or `job_id` while it has none).
  void SendHeartbeatsThenEvent(int heartbeats, int64_t seq, const std::string& job_id);
  // Each agent queues `count` Progress events numbered first_seq, first_seq + 1, ...
  void SendEvents(int64_t first_seq, int count, const std::string& job_id);
  // Each agent builds, without sending, ceil(rows_per_agent / rows_per_event) RequestRecords
  // events numbered first_seq, first_seq + 1, ... of job `job_id`, a scenario of its own, and
  // `rows_per_agent` rows in all. SendPrepared queues them (round-robin, as SendEvents).
  void PrepareRequests(int64_t first_seq, const std::string& job_id, int rows_per_agent,
                       int rows_per_event);
  void SendPrepared();
  // Waits until every agent has the phase's Acks.
  bool WaitAcks(absl::Duration timeout);

  // Assignments received so far, and until `count` have arrived.
  void ResetAssignments();
  bool WaitAssignments(int count, absl::Duration timeout);
  SteadyTime first_assignment() const;
  SteadyTime last_assignment() const;

  // When the last agent reached the current target (registration or ack phase).
  SteadyTime completed_at() const;
  // Streams that ended before the fleet cancelled them, and the first such status.
  int failed() const { return failed_.load(); }
  std::string first_error() const;

  // Called by the agents (gRPC callback threads).
  void OnRegistered();
  void OnAck(int64_t acks_now);
  void OnAssignment();
  void OnDone(bool cancelled_by_us, const std::string& error);

 private:
  // Waits for `done`, or (with stop_on_failure) for a stream to fail first.
  bool WaitUntil(const std::function<bool()>& done, absl::Duration timeout,
                 bool stop_on_failure = true);

  struct Stubs;  // the channels and their AgentLink stubs

  // Dependency order: the channels outlive the calls (agents) made on them.
  const std::string address_;
  int channels_ = 0;
  std::unique_ptr<Stubs> stubs_;
  std::vector<std::unique_ptr<ScaleAgent>> agents_;
  bool attached_ = false;  // Attach() ran: every agent's stream was started

  mutable std::mutex mu_;
  std::condition_variable cv_;
  int registered_ = 0;                 // guarded by mu_
  int64_t ack_target_ = 0;             // guarded by mu_: acks each agent must reach
  int64_t acks_per_agent_so_far_ = 0;  // guarded by mu_: the previous phases' sum
  int reached_ = 0;                    // guarded by mu_: agents at ack_target_
  int assignments_ = 0;                // guarded by mu_
  int done_ = 0;                       // guarded by mu_: streams gRPC finished
  SteadyTime completed_at_;            // guarded by mu_
  SteadyTime first_assignment_;        // guarded by mu_
  SteadyTime last_assignment_;         // guarded by mu_
  std::string first_error_;            // guarded by mu_
  std::atomic<int> failed_{0};
};

}  // namespace kvbench::bench
