#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/link/event_spool.h"
#include "agent/link/link_transport.h"
#include "agent/scenario/scenario_worker.h"
#include "common/loop/executor.h"
#include "common/time/clock.h"
#include "kvbench/v1/agent.pb.h"
#include "kvbench/v1/agent_link.pb.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench::agent {

// Defaults of ControllerLinkOptions.
inline constexpr absl::Duration kDefaultHeartbeatInterval = absl::Seconds(5);
inline constexpr absl::Duration kDefaultBackoffInitial = absl::Milliseconds(100);
inline constexpr absl::Duration kDefaultBackoffMax = absl::Seconds(10);
// A stream whose Registered does not come within this is cancelled and retried.
inline constexpr absl::Duration kRegisterTimeout = absl::Seconds(10);

struct ControllerLinkOptions {
  std::string agent_id;
  // host:port, or several comma-separated (controllers sharing a store: the link finds the
  // leader, FailoverLinkTransport).
  std::string controller_address;
  v1::TlsConfig tls;
  bool insecure = false;
  absl::Duration heartbeat_interval = kDefaultHeartbeatInterval;  // until Registered says otherwise
  absl::Duration backoff_initial = kDefaultBackoffInitial;
  absl::Duration backoff_max = kDefaultBackoffMax;
  // Free bytes under the NVMe cache dir, read for every heartbeat (Heartbeat.nvme_free_bytes) so
  // the controller places NVME scenarios on what is free now; unset: none sent.
  std::function<std::optional<int64_t>()> nvme_free_bytes;
  // The preflight checks that do not pass now (WARN and FAIL), read for every heartbeat
  // (Heartbeat.preflight; agent/preflight/preflight_monitor.h); unset: none sent.
  std::function<std::vector<v1::PreflightCheck>()> preflight;
};

// The agent's side of the AgentLink stream (DESIGN.md "The agent ↔ controller link"): dials the
// controller, registers (capabilities and the scenarios still running or with unacknowledged
// events), replays the spool after the controller's acked_seq, heartbeats, hands assignments and
// cancels to the worker, and numbers, spools and sends the worker's events. Reconnects with
// exponential backoff and full jitter when the stream ends.
//
// Threads (STYLE.md rule 14): the link has no thread of its own. Everything about the stream's
// life (connect, the register timeout, heartbeats, the backoff before a reconnect, the
// controller's messages) runs as named tasks and timers on the injected Executor ("link.*"); the
// transport's callbacks only post to it, tagged with their stream so a late one is dropped. The
// worker's sink spools on the worker's thread (durable before anything is sent) and posts the
// send. The worker must not deliver events after the link is destroyed (stop the worker, or let
// it finish, first). The executor must outlive the link.
class ControllerLink {
 public:
  // The gRPC transport from options (MakeAgentChannelCredentials(options.tls, options.insecure)).
  // `spool`, `worker`, `clock` and `executor` are borrowed and must outlive the link.
  static absl::StatusOr<std::unique_ptr<ControllerLink>> Create(ControllerLinkOptions options,
                                                                v1::AgentCapabilities capabilities,
                                                                EventSpool* spool,
                                                                ScenarioWorker* worker,
                                                                Clock* clock, Executor* executor);
  // Same over any transport.
  static std::unique_ptr<ControllerLink> CreateWithTransport(
      ControllerLinkOptions options, v1::AgentCapabilities capabilities, EventSpool* spool,
      ScenarioWorker* worker, Clock* clock, Executor* executor,
      std::unique_ptr<LinkTransport> transport);
  // Stop().
  ~ControllerLink();
  ControllerLink(const ControllerLink&) = delete;
  ControllerLink& operator=(const ControllerLink&) = delete;

  // Posts the first connect. Any thread; a no-op once started or stopped.
  void Start();
  // Closes the stream and cancels the link's timers; a link task that has not run yet never will.
  // Idempotent. Any thread (it waits for a link task that is running to finish), but not from
  // inside a link task.
  void Stop();

  // Thread-safe.
  bool connected() const;  // registered on a live stream
  int64_t acked_seq() const;
  int connects() const;  // successful registrations so far

 private:
  // Shared with every task the link schedules: a task runs only while the link is not stopped,
  // under `mu`, so Stop from another thread never races one.
  struct Life {
    std::mutex mu;
    bool started = false;
    bool stopped = false;
  };

  ControllerLink(ControllerLinkOptions options, v1::AgentCapabilities capabilities,
                 EventSpool* spool, ScenarioWorker* worker, Clock* clock, Executor* executor,
                 std::unique_ptr<LinkTransport> transport);

  // Wraps `task` so it runs only while the link is live.
  Executor::Task Guarded(std::function<void()> task);
  void PostGuarded(absl::string_view name, std::function<void()> task);

  // Stream life, on the executor.
  void Connect();
  void OnStreamMessage(uint64_t stream_id, const v1::ControllerMessage& message);
  void OnStreamDone(uint64_t stream_id, const absl::Status& status);
  void OnRegisterTimeout(uint64_t stream_id);
  void CancelTimers();
  v1::AgentMessage MakeRegister() const;
  void OnRegistered(const v1::Registered& registered);
  void OnAssignment(const v1::Assignment& assignment);
  void OnCancel(const v1::CancelScenario& cancel);
  void OnAck(int64_t acked_seq);
  void SendHeartbeat();
  void SendSpooled(v1::Event event);
  // The worker's sink (also used for events the link makes itself). Any thread.
  void EmitEvent(v1::Event event);
  absl::Duration NextBackoff(const absl::Status& status);
  void LogStreamEnd(const absl::Status& status, bool was_registered);

  const ControllerLinkOptions options_;
  const v1::AgentCapabilities capabilities_;
  EventSpool* const spool_;
  ScenarioWorker* const worker_;
  Clock* const clock_;
  Executor* const executor_;
  const std::unique_ptr<LinkTransport> transport_;
  const std::shared_ptr<Life> life_ = std::make_shared<Life>();

  // Read from any thread.
  std::atomic<bool> registered_{false};
  std::atomic<int64_t> acked_seq_{0};
  std::atomic<int> connects_{0};

  // Executor tasks only (or Stop, under life_->mu).
  std::unique_ptr<LinkStream> stream_;  // the stream being run, registered or not
  uint64_t stream_id_ = 0;              // the current stream's tag
  std::string stream_address_;          // the controller the current stream went to, for logs
  int64_t sent_seq_ = 0;                // highest event seq written on the registered stream
  absl::Duration heartbeat_interval_;
  TaskId register_timeout_;
  TaskId heartbeat_task_;
  TaskId reconnect_task_;
  int failures_ = 0;              // reset by a stream that stayed registered for backoff_max
  absl::Duration registered_at_;  // monotonic, of the last registration
  std::string last_auth_error_;
  absl::BitGen random_;

  // Spool append and the post of its send, in seq order (the worker's thread and the executor's).
  std::mutex emit_mu_;
};

}  // namespace kvbench::agent
