#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/link/event_spool.h"
#include "agent/link/link_transport.h"
#include "agent/link/scenario_runner.h"
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
  std::string controller_address;  // host:port
  v1::TlsConfig tls;
  bool insecure = false;
  absl::Duration heartbeat_interval = kDefaultHeartbeatInterval;  // until Registered says otherwise
  absl::Duration backoff_initial = kDefaultBackoffInitial;
  absl::Duration backoff_max = kDefaultBackoffMax;
};

// The agent's side of the AgentLink stream (DESIGN.md "The agent ↔ controller link"): dials the
// controller, registers (capabilities and the scenarios still running or with unacknowledged
// events), replays the spool after the controller's acked_seq, heartbeats, hands assignments and
// cancels to the runner, and numbers, spools and sends the runner's events. Reconnects with
// exponential backoff and full jitter when the stream ends.
//
// Threads: one link thread owns the stream's life (connect, heartbeats, backoff) and handles the
// controller's messages, which the transport's callbacks only post to it. The runner's sink
// spools and sends on the runner's thread. The runner must not deliver events after the link is
// destroyed (stop the runner, or let it finish, first).
class ControllerLink {
 public:
  // The gRPC transport from options (MakeAgentChannelCredentials(options.tls, options.insecure)).
  // `spool`, `runner` and `clock` are borrowed and must outlive the link.
  static absl::StatusOr<std::unique_ptr<ControllerLink>> Create(ControllerLinkOptions options,
                                                                v1::AgentCapabilities capabilities,
                                                                EventSpool* spool,
                                                                ScenarioRunner* runner,
                                                                Clock* clock);
  // Same over any transport.
  static std::unique_ptr<ControllerLink> CreateWithTransport(
      ControllerLinkOptions options, v1::AgentCapabilities capabilities, EventSpool* spool,
      ScenarioRunner* runner, Clock* clock, std::unique_ptr<LinkTransport> transport);
  ~ControllerLink();
  ControllerLink(const ControllerLink&) = delete;
  ControllerLink& operator=(const ControllerLink&) = delete;

  void Start();
  void Stop();  // idempotent; closes the stream, joins its threads

  bool connected() const;  // registered on a live stream
  int64_t acked_seq() const;
  int connects() const;  // successful registrations so far

 private:
  // One message from the controller, tagged with the stream it came on.
  struct Inbound {
    uint64_t stream;
    v1::ControllerMessage message;
  };

  ControllerLink(ControllerLinkOptions options, v1::AgentCapabilities capabilities,
                 EventSpool* spool, ScenarioRunner* runner, Clock* clock,
                 std::unique_ptr<LinkTransport> transport);

  void Run();
  // One stream from open to done; returns its final status.
  absl::Status RunStream();
  std::unique_ptr<LinkStream> OpenStream();
  // Handles the controller's messages and heartbeats until the stream ends or Stop.
  absl::Status ServeStream(LinkStream* stream);
  v1::AgentMessage MakeRegister() const;
  void Handle(const v1::ControllerMessage& message);
  void OnRegistered(const v1::Registered& registered);
  void OnAssignment(const v1::Assignment& assignment);
  void OnAck(int64_t acked_seq);
  void SendHeartbeat();
  // The runner's sink (also used for events the link makes itself).
  void EmitEvent(v1::Event event);
  absl::Duration NextBackoff(const absl::Status& status);
  void LogStreamEnd(const absl::Status& status, bool was_registered);

  const ControllerLinkOptions options_;
  const v1::AgentCapabilities capabilities_;
  EventSpool* const spool_;
  ScenarioRunner* const runner_;
  Clock* const clock_;
  const std::unique_ptr<LinkTransport> transport_;

  // The link thread's state and what is posted to it.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;              // guarded by mu_
  uint64_t stream_id_ = 0;             // guarded by mu_: the current stream's tag
  bool stream_done_ = false;           // guarded by mu_
  absl::Status stream_status_;         // guarded by mu_
  std::deque<Inbound> inbox_;          // guarded by mu_
  int64_t acked_seq_ = 0;              // guarded by mu_
  int connects_ = 0;                   // guarded by mu_
  bool registered_ = false;            // guarded by mu_
  absl::Duration heartbeat_interval_;  // guarded by mu_

  // What events are sent on: the live stream once registered. send_mu_ and mu_ are never held
  // together.
  std::mutex send_mu_;
  LinkStream* send_stream_ = nullptr;  // guarded by send_mu_; null unless registered

  // Link thread only.
  LinkStream* active_stream_ = nullptr;  // the stream being run, registered or not
  int failures_ = 0;
  std::string last_auth_error_;
  absl::BitGen random_;

  std::thread thread_;
};

}  // namespace kvbench::agent
